// replica-guard's entry point: parses the flags, sets up logging and the API configuration, and
// runs the Manager until SIGTERM or SIGINT, then shuts down cleanly and exits 0 (1 when that takes
// longer than --graceful-shutdown-timeout).
#include <CLI/CLI.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/multiple_exceptions.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdlib>
#include <iostream>

#include "client/config/resolve.hpp"
#include "client/rest/rest_client.hpp"
#include "client/version.hpp"
#include "operator/annotations.hpp"
#include "operator/logging.hpp"
#include "operator/manager.hpp"
#include "operator/options.hpp"
#include "operator/suspect_node_tainter.hpp"

namespace {

// 1 after logging `what` and the error, when there is one; else 0.
int failed(const std::exception_ptr& error, std::string_view what) {
  if (!error) return 0;
  try {
    std::rethrow_exception(error);
  } catch (const boost::asio::multiple_exceptions& e) {
    // Several branches of a parallel wait failed: the first one is the cause.
    return failed(e.first_exception(), what);
  } catch (const std::exception& e) {
    spdlog::critical("{}: {}", what, e.what());
  }
  return 1;
}

rg::client::RestConfig api_config(const rg::op::Options& options) {
  rg::op::setup_logging(rg::op::parse_log_format(options.log_format), options.verbosity);
  rg::client::ResolveOptions resolve;
  resolve.kubeconfig = options.kubeconfig;
  return rg::client::resolve_config(resolve);
}

// --remove-suspect-taints: removes replica-guard's taint from every node and exits (1 when a node
// could not be listed or patched).
int remove_suspect_taints(const rg::op::Options& options) {
  boost::asio::io_context io;
  rg::client::RestClient client(api_config(options));
  rg::op::SuspectNodeTainter tainter(client, nullptr, false, false);
  int exit_code = 0;
  boost::asio::co_spawn(
      io, tainter.remove_all(), [&](const std::exception_ptr& error, std::size_t removed) {
        exit_code = failed(error, "could not remove the suspect-node taints");
        if (!error) spdlog::info("removed replica-guard.io/suspect from {} node(s)", removed);
      });
  io.run();
  return exit_code;
}

int run_operator(const rg::op::Options& options) {
  rg::client::RestConfig config = api_config(options);
  spdlog::info("replica-guard {} using the API server at {} (configuration from {})", rg::kVersion,
               config.host, config.source);

  boost::asio::io_context io;
  rg::op::Manager manager(options, std::move(config));
  boost::asio::cancellation_signal stop;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  // Past --graceful-shutdown-timeout the process ends at once, as the kubelet's SIGKILL would
  // after terminationGracePeriodSeconds: a scale whose record was not written yet is the next
  // leader's to finish (see kAppliedAnnotation).
  const auto grace = rg::op::parse_duration(options.graceful_shutdown_timeout);
  boost::asio::steady_timer give_up(io);
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    spdlog::info("received signal {}: shutting down", signal);
    stop.emit(boost::asio::cancellation_type::terminal);
    if (grace.count() == 0) return;
    give_up.expires_after(grace);
    give_up.async_wait([&](const boost::system::error_code& timer_ec) {
      if (timer_ec) return;
      spdlog::error("graceful shutdown timed out after {}: exiting with work in flight",
                    options.graceful_shutdown_timeout);
      spdlog::shutdown();
      std::_Exit(1);
    });
  });
  int exit_code = 0;
  boost::asio::co_spawn(
      io, manager.run(),
      boost::asio::bind_cancellation_slot(stop.slot(), [&](const std::exception_ptr& error) {
        signals.cancel();
        give_up.cancel();
        exit_code = failed(error, "replica-guard stopped");
      }));
  io.run();
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "replica-guard: keeps opted-in Deployments at their serving replicas when nodes fail"};
  app.set_version_flag("--version", std::string(rg::kVersion));
  rg::op::Options options;
  rg::op::add_flags(app, options);
  CLI11_PARSE(app, argc, argv);
  try {
    rg::op::validate(options);
    return options.remove_suspect_taints ? remove_suspect_taints(options) : run_operator(options);
  } catch (const std::exception& e) {
    std::cerr << "replica-guard: " << e.what() << '\n';
    return 1;
  }
}
