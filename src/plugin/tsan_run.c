/*
 * tsan_run.c - the instrumentation's calls served for txpath run: a
 * plugin built with `txpath config --cflags` calls them (plugin/tsan_abi.h)
 * in both binaries, and only txpath check has a use for its accesses
 * (src/check/runtime/plain.c).  Here a load or store is nothing to do; an
 * atomic is done, sequentially consistent.
 *
 * Not where plain.c serves them (the check build, TXP_CHECK_PLAIN), and
 * not under ThreadSanitizer, whose runtime serves them: a plugin built so
 * is then checked by ThreadSanitizer itself.
 */
#include <stdbool.h>
#include <stddef.h>

#include "plugin/tsan_abi.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TXP_UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define TXP_UNDER_TSAN 1
#endif

#if !defined(TXP_CHECK_PLAIN) && !defined(TXP_UNDER_TSAN)

static inline void plain(const volatile void *addr, size_t size, unsigned flags, const void *pc)
{
	(void)addr, (void)size, (void)flags, (void)pc;
}

static inline void atomic(const volatile void *addr, size_t size, bool load, bool store, int mo,
			  const void *pc)
{
	(void)addr, (void)size, (void)load, (void)store, (void)mo, (void)pc;
}

static inline void fence(int mo)
{
	(void)mo;
}

static inline void init(void)
{
}

TXP_TSAN_ABI(plain, atomic, fence, init)

#endif
