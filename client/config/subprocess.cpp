// run_process: posix_spawn with pipes for stdout/stderr and a pidfd for the exit, all awaited on
// the caller's executor, raced against a deadline. The child gets its own process group so a
// timeout or a cancellation kills everything it started, and is always reaped.
#include "client/config/subprocess.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>  // also declares environ (g++ defines _GNU_SOURCE)

#include <cerrno>
#include <map>
#include <stdexcept>
#include <system_error>

namespace rg::client {
namespace {

namespace asio = boost::asio;
using asio::posix::stream_descriptor;

[[noreturn]] void throw_errno(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

/// Owns a file descriptor until it is released to a stream_descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&&) = delete;
  ~Fd() { close(); }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void close() {
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  }

 private:
  int fd_ = -1;
};

std::pair<Fd, Fd> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw_errno(errno, "pipe2");
  return {Fd(fds[0]), Fd(fds[1])};
}

/// A spawned child in its own process group; the destructor kills the group and reaps the child
/// unless it was already reaped.
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0) {
      kill_group();
      reap();
    }
  }
  pid_t pid() const { return pid_; }
  void kill_group() const { ::kill(-pid_, SIGKILL); }
  /// Waits for the child (which has exited or been killed) and returns its wait status.
  int reap() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_;
};

/// The child's environment: ours with `extra` added or overriding.
std::vector<std::string> child_environment(const ProcessSpec& spec) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    vars[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  for (const auto& [name, value] : spec.env) vars[name] = value;
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [name, value] : vars) {
    std::string entry = name;
    entry += '=';
    entry += value;
    out.push_back(std::move(entry));
  }
  return out;
}

pid_t spawn(const ProcessSpec& spec, int stdout_fd, int stderr_fd) {
  std::vector<std::string> environment = child_environment(spec);
  std::vector<char*> argv;
  argv.reserve(spec.args.size() + 2);
  argv.push_back(const_cast<char*>(spec.command.c_str()));
  for (const auto& a : spec.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  envp.reserve(environment.size() + 1);
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t signals;
  sigemptyset(&signals);
  posix_spawnattr_setsigmask(&attributes, &signals);
  sigaddset(&signals, SIGPIPE);  // a server may ignore SIGPIPE; the child should not inherit that
  posix_spawnattr_setsigdefault(&attributes, &signals);

  pid_t pid = -1;
  int rc =
      ::posix_spawnp(&pid, spec.command.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) throw_errno(rc, "cannot start " + spec.command);
  return pid;
}

asio::awaitable<void> read_all(stream_descriptor& stream, std::string& out, std::size_t limit,
                               const std::string& command) {
  char buffer[4096];
  while (true) {
    auto [ec, n] =
        co_await stream.async_read_some(asio::buffer(buffer), asio::as_tuple(asio::use_awaitable));
    if (ec == asio::error::eof) co_return;
    if (ec) throw std::system_error(ec, "reading the output of " + command);
    out.append(buffer, n);
    if (out.size() > limit) {
      throw std::length_error(command + " wrote more than " + std::to_string(limit) +
                              " bytes of output");
    }
  }
}

/// Both streams to their end, then the exit.
asio::awaitable<void> collect(stream_descriptor& out, stream_descriptor& err,
                              stream_descriptor& exited, ProcessResult& result,
                              const ProcessSpec& spec) {
  using namespace asio::experimental::awaitable_operators;
  auto reads = read_all(out, result.out, spec.max_output, spec.command) &&
               read_all(err, result.err, spec.max_output, spec.command);
  co_await std::move(reads);
  co_await exited.async_wait(stream_descriptor::wait_read, asio::use_awaitable);
}

}  // namespace

asio::awaitable<ProcessResult> run_process(const ProcessSpec& spec) {
  using namespace asio::experimental::awaitable_operators;
  auto executor = co_await asio::this_coro::executor;

  auto [out_read, out_write] = make_pipe();
  auto [err_read, err_write] = make_pipe();
  Child child(spawn(spec, out_write.get(), err_write.get()));
  out_write.close();  // the child holds the write ends; EOF comes when it (and its children) exit
  err_write.close();
  // Through syscall(): Debian 12's <sys/pidfd.h> lacks extern "C".
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child.pid(), 0));
  if (pidfd < 0) throw_errno(errno, "pidfd_open for " + spec.command);

  stream_descriptor out(executor, out_read.release());
  stream_descriptor err(executor, err_read.release());
  stream_descriptor exited(executor, pidfd);
  asio::steady_timer deadline(executor, spec.timeout);

  ProcessResult result;
  auto finish = collect(out, err, exited, result, spec);
  auto expire = deadline.async_wait(asio::use_awaitable);
  auto race = std::move(finish) || std::move(expire);
  auto outcome = co_await std::move(race);
  if (outcome.index() == 1) {
    result.timed_out = true;
    child.kill_group();
  }
  int status = child.reap();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  co_return result;
}

}  // namespace rg::client
