// One process-wide stop request for long runs (a bench, an iobench sweep):
// SIGINT or SIGTERM sets it once install_stop_handlers() has run; long loops
// poll stop_requested(), wind down, and report their run incomplete. A second
// signal kills the process at once (the default action), for when a write
// is stuck in the kernel.
#pragma once

namespace fenec::kit {

bool stop_requested();
void request_stop();
// Forgets a stop request: for tests, and for tools that run several steps in turn.
void clear_stop_request();
// SA_RESTART, so a pwrite or fsync in progress does not fail with EINTR just
// because the user asked the run to wind down. Prints one line on stderr at
// the first signal. Idempotent.
void install_stop_handlers();

}  // namespace fenec::kit
