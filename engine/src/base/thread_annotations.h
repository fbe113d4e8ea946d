// Lock rules the compiler checks: clang's thread-safety annotations.
//
// A member a lock guards says so (FENEC_GUARDED_BY(mu_)); a function that
// must be called with a lock held says so (FENEC_REQUIRES(mu_)); a lock type
// is a capability with acquire and release functions. clang's
// -Wthread-safety then reports every access made without the lock, every
// call made without the lock it requires, every lock not released. `make
// test` runs it over the engine (scripts/check-thread-safety.py); the build's
// compiler (GCC) sees empty macros. The attributes and what they mean:
// https://clang.llvm.org/docs/ThreadSafetyAnalysis.html
//
// Prefixed FENEC_: absl/base/thread_annotations.h, which absl's containers
// include (scenarios/growth includes one beside the base), still defines the
// unprefixed names (GUARDED_BY, NO_THREAD_SAFETY_ANALYSIS ...) for backward
// compatibility, without #ifndef guards. Ours never meet theirs.
//
// The lock types to annotate with: engine/src/base/mutex.h (Mutex,
// MutexLock, CondVar) and engine/src/db/rw_lock.h (the database's RwLock).
#pragma once

#if defined(__clang__)
#define FENEC_THREAD_ANNOTATION_(x) __attribute__((x))
#else
#define FENEC_THREAD_ANNOTATION_(x)
#endif

// On a class: its objects are capabilities (locks); x names the kind ("mutex").
#define FENEC_CAPABILITY(x) FENEC_THREAD_ANNOTATION_(capability(x))
// On a class: an RAII guard; its constructor acquires, its destructor releases.
#define FENEC_SCOPED_CAPABILITY FENEC_THREAD_ANNOTATION_(scoped_lockable)

// On a member: read it with x held (shared or exclusive), write it with x held exclusively.
#define FENEC_GUARDED_BY(x) FENEC_THREAD_ANNOTATION_(guarded_by(x))
// On a pointer member: the same for what it points to (the pointer itself is free).
#define FENEC_PT_GUARDED_BY(x) FENEC_THREAD_ANNOTATION_(pt_guarded_by(x))
// On a lock member: the order locks are taken in.
#define FENEC_ACQUIRED_BEFORE(...) FENEC_THREAD_ANNOTATION_(acquired_before(__VA_ARGS__))
#define FENEC_ACQUIRED_AFTER(...) FENEC_THREAD_ANNOTATION_(acquired_after(__VA_ARGS__))

// On a function: callers hold these exclusively / at least shared.
#define FENEC_REQUIRES(...) FENEC_THREAD_ANNOTATION_(requires_capability(__VA_ARGS__))
#define FENEC_REQUIRES_SHARED(...) FENEC_THREAD_ANNOTATION_(requires_shared_capability(__VA_ARGS__))
// On a function: it acquires / releases these (no argument: the object itself).
#define FENEC_ACQUIRE(...) FENEC_THREAD_ANNOTATION_(acquire_capability(__VA_ARGS__))
#define FENEC_ACQUIRE_SHARED(...) FENEC_THREAD_ANNOTATION_(acquire_shared_capability(__VA_ARGS__))
#define FENEC_RELEASE(...) FENEC_THREAD_ANNOTATION_(release_capability(__VA_ARGS__))
#define FENEC_RELEASE_SHARED(...) FENEC_THREAD_ANNOTATION_(release_shared_capability(__VA_ARGS__))
#define FENEC_RELEASE_GENERIC(...) FENEC_THREAD_ANNOTATION_(release_generic_capability(__VA_ARGS__))
// On a function: acquires when it returns the first argument (true / false).
#define FENEC_TRY_ACQUIRE(...) FENEC_THREAD_ANNOTATION_(try_acquire_capability(__VA_ARGS__))
#define FENEC_TRY_ACQUIRE_SHARED(...) FENEC_THREAD_ANNOTATION_(try_acquire_shared_capability(__VA_ARGS__))
// On a function: callers must not hold these (it takes them itself).
#define FENEC_EXCLUDES(...) FENEC_THREAD_ANNOTATION_(locks_excluded(__VA_ARGS__))
// On a function: it checks (e.g. asserts) that the caller holds x.
#define FENEC_ASSERT_CAPABILITY(x) FENEC_THREAD_ANNOTATION_(assert_capability(x))
#define FENEC_ASSERT_SHARED_CAPABILITY(x) FENEC_THREAD_ANNOTATION_(assert_shared_capability(x))
// On a function: it returns a reference to the lock x.
#define FENEC_RETURN_CAPABILITY(x) FENEC_THREAD_ANNOTATION_(lock_returned(x))

// On a function: not analyzed. Only where the analysis cannot express a
// correct pattern, always with a comment saying why.
#define FENEC_NO_THREAD_SAFETY_ANALYSIS FENEC_THREAD_ANNOTATION_(no_thread_safety_analysis)
