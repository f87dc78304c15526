// The taint's I/O (see suspect_node_tainter.hpp).
#include "operator/suspect_node_tainter.hpp"

#include <boost/json.hpp>

#include <algorithm>

#include "client/model/time.hpp"
#include "client/record/event_recorder.hpp"
#include "client/rest/api_error.hpp"
#include "client/rest/rest_client.hpp"
#include "client/transport/cancellation.hpp"
#include "operator/logging.hpp"

namespace rg::op {
namespace json = boost::json;

namespace {

// A guard that fails (the node changed since it was read) is retried this often at once.
constexpr int kAttempts = 5;

client::ObjectReference node_reference(const std::string& name) {
  client::ObjectReference ref;
  ref.api_version = "v1";
  ref.kind = "Node";
  ref.name = name;
  ref.uid = name;  // as the kubelet and node lifecycle controller reference nodes
  return ref;
}

// Whether `failure` is an error `predicate` recognises.
bool is(const std::exception_ptr& failure, bool (*predicate)(const std::exception&)) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    return predicate(e);
  } catch (...) {
    return false;
  }
}

}  // namespace

SuspectNodeTainter::SuspectNodeTainter(client::RestClient& client, client::EventRecorder* events,
                                       bool enabled, bool dry_run)
    : client_(client), events_(events), policy_{.enabled = enabled}, dry_run_(dry_run) {}

boost::asio::awaitable<void> SuspectNodeTainter::sync(const informer::Indexer<client::Node>& nodes,
                                                      std::vector<std::string> suspects,
                                                      bool surges_suppressed,
                                                      bool stop_on_forbidden) {
  std::vector<NodeTaintFacts> facts;
  for (const auto& node : nodes.list()) {
    const std::string& name = node->metadata.name;
    facts.push_back({name, std::binary_search(suspects.begin(), suspects.end(), name),
                     has_suspect_taint(*node)});
  }
  TaintPolicy policy = policy_;
  policy.surges_suppressed = surges_suppressed;
  const std::vector<TaintChange> plan = plan_suspect_taints(facts, policy);
  for (const TaintChange& change : plan) {
    const std::string what = change.add ? "taint" : "untaint";
    const std::string reason = change.add ? "SuspectNodeTainted" : "SuspectNodeUntainted";
    const std::string message =
        change.add ? "no Lease renewal observed: tainted replica-guard.io/suspect:NoSchedule"
                   : "removed replica-guard.io/suspect:NoSchedule";
    if (dry_run_) {
      if (std::find(reported_.begin(), reported_.end(), change) != reported_.end()) continue;
      log(spdlog::level::info, "dry-run, not done: " + what,
          {{"node", change.node}, {"why", message}});
      if (events_)
        events_->record(node_reference(change.node), "Normal", reason,
                        "dry-run, not done: " + message);
      continue;
    }
    try {
      if (co_await apply(change.node, change.add)) {
        log(spdlog::level::info, reason, {{"node", change.node}});
        if (events_) events_->record(node_reference(change.node), "Normal", reason, message);
      }
    } catch (const std::exception& e) {
      if (client::is_cancellation(std::current_exception())) throw;
      if (stop_on_forbidden && client::is_forbidden(e)) throw;
      log(spdlog::level::warn, "could not " + what + " the node; trying again",
          {{"node", change.node}, {"error", e.what()}});
    }
  }
  if (dry_run_) reported_ = plan;
}

boost::asio::awaitable<bool> SuspectNodeTainter::apply(std::string node, bool add) {
  // Every argument named, defaulted ones too: g++ 12 double-destroys defaulted coroutine
  // arguments.
  const client::ResourceRef nodes = client::resources::nodes();
  const client::GetOptions get_options;
  const client::PatchOptions patch_options;
  for (int attempt = 1;; ++attempt) {
    std::exception_ptr failure;
    try {
      const json::value current = co_await client_.get(nodes, node, get_options);
      const std::string now = client::format_time(std::chrono::system_clock::now());
      const auto patch = suspect_taint_patch(current, add, now);
      if (!patch) co_return false;
      std::string body = json::serialize(*patch);
      co_await client_.patch_text(nodes, node, client::PatchType::kJson, std::move(body),
                                  patch_options);
      co_return true;
    } catch (...) {
      failure = std::current_exception();
    }
    // Gone: nothing to do. A failed `test` (422 Invalid) or a Conflict: the node changed since
    // it was read; read it again.
    if (is(failure, client::is_not_found)) co_return false;
    if (attempt >= kAttempts ||
        !(is(failure, client::is_invalid) || is(failure, client::is_conflict)))
      std::rethrow_exception(failure);
  }
}

boost::asio::awaitable<std::size_t> SuspectNodeTainter::remove_all() {
  const client::ResourceRef nodes = client::resources::nodes();
  const client::ListOptions options;  // named: see apply()
  const json::value list = co_await client_.list(nodes, options);
  std::size_t removed = 0;
  for (const json::value& item : list.at("items").as_array()) {
    if (!suspect_taint_patch(item, false, "")) continue;  // not tainted
    const std::string name(item.at("metadata").at("name").as_string());
    if (co_await apply(name, false)) {
      log(spdlog::level::info, "SuspectNodeUntainted", {{"node", name}});
      ++removed;
    }
  }
  co_return removed;
}

}  // namespace rg::op
