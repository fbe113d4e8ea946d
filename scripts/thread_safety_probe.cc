// The must-not-compile probe: proves `make test`'s thread-safety check is on.
//
// scripts/check-thread-safety.py --probe compiles this file with the flags it
// uses on the engine, twice. As it is, Balance() reads balance_ without the
// lock that guards it: clang must reject it with a -Wthread-safety error
// naming balance_. With -DFENEC_PROBE_LOCKED it holds the lock: clang must
// accept it without a word. A setup that checks nothing (no clang, a lost
// -Wthread-safety, annotations that expand to nothing, a Mutex that lost
// its capability) fails one of the two. Not part of the build.
#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"

namespace fenec::probe {

class Account {
 public:
  int Balance();

 private:
  base::Mutex mu_;
  int balance_ FENEC_GUARDED_BY(mu_) = 0;
};

int Account::Balance() {
#ifdef FENEC_PROBE_LOCKED
  base::MutexLock lock(&mu_);
#endif
  return balance_;
}

}  // namespace fenec::probe
