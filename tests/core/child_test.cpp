// herald::process::Child against real processes (/bin/sh): how it reports an
// exit, that a SIGTERM the child handles is seen as the child's own exit
// code, that output trimmed for a long run still finds a later line, and that
// the child dies with its parent (PR_SET_PDEATHSIG) and holds none of its
// descriptors.
#include "core/process/child.hpp"

#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

namespace herald::process {
namespace {

using namespace std::chrono_literals;

TEST(Child, ReportsTheExitCodeAndTheWholeOutput) {
  Child c({"/bin/sh", "-c", "echo out; echo err >&2; exit 7"});
  EXPECT_EQ(c.wait_exit(30s), 7);
  EXPECT_EQ(c.output(), "out\nerr\n");
  EXPECT_TRUE(c.exited());
}

// A descriptor of the parent's (here a pipe without O_CLOEXEC, as a socket
// of a test's client is) is not the child's: closing it in the parent
// closes it, which its reader sees at once.
TEST(Child, InheritsNoDescriptorButItsOutput) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  Child c({"/bin/sh", "-c", "sleep 30"});
  close(fds[1]);
  // Its reader sees the close at once, not when the sleep ends.
  pollfd hup{fds[0], POLLIN, 0};
  EXPECT_EQ(poll(&hup, 1, 10'000), 1) << "the write end is still open in the child";
  close(fds[0]);
  c.kill();
}

TEST(Child, StopIsSigtermAndTheChildsOwnAnswer) {
  // The child answers SIGTERM with exit 3 once it has said it is ready, as
  // heraldd answers with 0: stop() returns what the child chose.
  Child c(
      {"/bin/sh", "-c", "trap 'echo bye; exit 3' TERM; echo ready; while :; do sleep 0.05; done"});
  ASSERT_TRUE(c.wait_for_line(std::regex("^ready$"), 30s));
  EXPECT_EQ(c.stop(30s), 3);
  EXPECT_NE(c.output().find("bye"), std::string::npos) << c.output();
}

TEST(Child, KillIsSigkill) {
  Child c({"/bin/sh", "-c", "echo ready; exec sleep 1000"});
  ASSERT_TRUE(c.wait_for_line(std::regex("ready"), 30s));
  EXPECT_EQ(c.kill(), 128 + SIGKILL);
}

TEST(Child, AnExecThatFailsIs127) {
  Child c({"/nonexistent/herald-no-such-program"});
  EXPECT_EQ(c.wait_exit(30s), 127);
  EXPECT_NE(c.output().find("exec failed"), std::string::npos);
}

TEST(Child, ABoundedOutputStillFindsALaterLine) {
  // 20,000 lines of 10 bytes with 4 KiB kept: the start is dropped, the
  // line after it is found, and what is kept stays within the bound.
  Child c({"/bin/sh", "-c",
           "i=0; while [ $i -lt 20000 ]; do echo filler-$i; i=$((i+1)); done; "
           "echo the-end"},
          {.env = std::nullopt, .max_output = 4096});
  EXPECT_TRUE(c.wait_for_line(std::regex("^the-end$"), 60s));
  EXPECT_EQ(c.wait_exit(30s), 0);
  EXPECT_LE(c.output().size(), 4096u);
  EXPECT_EQ(c.output().find("filler-0\n"), std::string::npos);
}

TEST(Child, TheEnvironmentIsExactlyTheOneGiven) {
  Child c({"/usr/bin/env"}, {.env = std::vector<std::string>{"ONLY=this"}, .max_output = 0});
  EXPECT_EQ(c.wait_exit(30s), 0);
  EXPECT_EQ(c.output(), "ONLY=this\n");
}

TEST(Child, DiesWithItsParent) {
  // What keeps a killed test from leaving servers behind. A process forked
  // here starts a Child, tells its pid and dies at once (no destructor, as
  // under SIGKILL); the kernel must then SIGKILL the Child.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t parent = fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    close(fds[0]);
    auto* c = new Child({"/bin/sh", "-c", "exec sleep 1000"});
    const pid_t pid = c->pid();
    (void)!write(fds[1], &pid, sizeof pid);
    _exit(0);
  }
  close(fds[1]);
  pid_t orphan = -1;
  ASSERT_EQ(read(fds[0], &orphan, sizeof orphan), static_cast<ssize_t>(sizeof orphan));
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(parent, &status, 0), parent);
  // The orphan belongs to init now, which reaps it: wait for it to be gone
  // (or a zombie waiting for init), bounded.
  bool gone = false;
  for (int i = 0; i < 3000 && !gone; ++i) {
    std::ifstream stat("/proc/" + std::to_string(orphan) + "/stat");
    std::string pid, comm, state;
    gone = !(stat >> pid >> comm >> state) || state == "Z";
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone) << "child " << orphan << " outlived its parent";
  if (!gone) ::kill(orphan, SIGKILL);
}

TEST(Child, SanitizerReportsAreFound) {
  EXPECT_EQ(sanitizer_report("==1==ERROR: LeakSanitizer: detected memory leaks"),
            "ERROR: LeakSanitizer:");
  EXPECT_EQ(sanitizer_report("x.cpp:3:5: runtime error: signed integer overflow"),
            ": runtime error: ");
  EXPECT_EQ(sanitizer_report("WARNING: ThreadSanitizer: data race"), "WARNING: ThreadSanitizer:");
  EXPECT_EQ(sanitizer_report("listening addr=127.0.0.1:80\nstopped\n"), std::nullopt);
}

}  // namespace
}  // namespace herald::process
