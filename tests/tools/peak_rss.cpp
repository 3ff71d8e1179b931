// peak_rss PROGRAM ARGS...: runs PROGRAM with ARGS (its output discarded) and prints its peak
// resident set in kilobytes (wait4's ru_maxrss), or -1 when it could not be started.
//
// tests/ptx_memory_test.cpp measures the CLI through this small process rather than forking it
// from the test binary: Linux carries a process's peak RSS across fork and execve (execve records
// the old address space's high-water mark), so a CLI forked from a test process that had grown
// (after other tests in the same process) reported the test's peak, not its own.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: peak_rss PROGRAM ARGS...\n");
    return 2;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(argv[1], argv + 1);
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) {
    std::printf("-1\n");
    return 1;
  }
  std::printf("%ld\n", ru.ru_maxrss);
  return 0;
}
