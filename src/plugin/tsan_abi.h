/*
 * tsan_abi.h - the calls that -fsanitize=thread compiles into code, as one
 * definition for whoever serves them (private).
 *
 * A plugin built with `txpath config --cflags`, and the check build's own
 * library, call __tsan_readN before each N-byte load, __tsan_writeN
 * before each store, __tsan_atomicN_OP for each atomic (which must do the
 * operation and return its value), and so on: the instrumentation ABI of
 * gcc and clang.  Two binaries serve it, never libtsan:
 *
 *   txpath check   src/check/runtime/plain.c: every access through the
 *                  memory model and the data-race detector
 *   txpath run     src/plugin/tsan_run.c: nothing to do but the atomics
 *
 * so one build of a plugin serves both.  TXP_TSAN_ABI(PLAIN, ATOMIC,
 * FENCE, INIT) defines every function over four of the server's:
 *
 *   PLAIN(addr, size, flags, pc)             a load or store (flags below)
 *   ATOMIC(addr, size, load, store, mo, pc)  before an atomic: what it
 *                                            reads and writes, its order
 *   FENCE(mo)                                before a thread fence
 *   INIT()                                   an instrumented object's
 *                                            constructor ran (one each)
 *
 * pc is the instrumented code's address of the access.  The atomic itself
 * is done here, sequentially consistent (at least as strong as asked).
 */
#ifndef TXP_PLUGIN_TSAN_ABI_H
#define TXP_PLUGIN_TSAN_ABI_H

#include <stdint.h>

#define TXP_TSAN_WRITE 1u	/* a store (else a load) */
#define TXP_TSAN_MARKED 2u	/* atomic or volatile: an intended race */

#define TXP_TSAN_PC __builtin_return_address(0)
#define TXP_TSAN_SC __ATOMIC_SEQ_CST

#define TXP_TSAN_FN(ret, name, params, body)					\
	ret name params;							\
	ret name params body

#define TXP_TSAN_PLAIN_SIZE(PLAIN, n)						\
	TXP_TSAN_FN(void, __tsan_read##n, (void *a),				\
		    { PLAIN(a, n, 0, TXP_TSAN_PC); })				\
	TXP_TSAN_FN(void, __tsan_write##n, (void *a),				\
		    { PLAIN(a, n, TXP_TSAN_WRITE, TXP_TSAN_PC); })		\
	TXP_TSAN_FN(void, __tsan_unaligned_read##n, (void *a),			\
		    { PLAIN(a, n, 0, TXP_TSAN_PC); })				\
	TXP_TSAN_FN(void, __tsan_unaligned_write##n, (void *a),			\
		    { PLAIN(a, n, TXP_TSAN_WRITE, TXP_TSAN_PC); })		\
	TXP_TSAN_FN(void, __tsan_volatile_read##n, (void *a),			\
		    { PLAIN(a, n, TXP_TSAN_MARKED, TXP_TSAN_PC); })		\
	TXP_TSAN_FN(void, __tsan_volatile_write##n, (void *a),			\
		    { PLAIN(a, n, TXP_TSAN_WRITE | TXP_TSAN_MARKED, TXP_TSAN_PC); }) \
	TXP_TSAN_FN(void, __tsan_unaligned_volatile_read##n, (void *a),		\
		    { PLAIN(a, n, TXP_TSAN_MARKED, TXP_TSAN_PC); })		\
	TXP_TSAN_FN(void, __tsan_unaligned_volatile_write##n, (void *a),	\
		    { PLAIN(a, n, TXP_TSAN_WRITE | TXP_TSAN_MARKED, TXP_TSAN_PC); })

#define TXP_TSAN_RMW(ATOMIC, n, T, op)						\
	TXP_TSAN_FN(T, __tsan_atomic##n##_##op, (volatile T *a, T v, int mo), {	\
		ATOMIC(a, sizeof(T), 1, 1, mo, TXP_TSAN_PC);			\
		return __atomic_##op(a, v, TXP_TSAN_SC);			\
	})

/* A compare-and-exchange's order: the stronger of success's and failure's. */
#define TXP_TSAN_CAS_MO(mo, fmo) ((mo) > (fmo) ? (mo) : (fmo))

#define TXP_TSAN_ATOMIC_SIZE(ATOMIC, n, T)					\
	TXP_TSAN_FN(T, __tsan_atomic##n##_load, (const volatile T *a, int mo), { \
		ATOMIC(a, sizeof(T), 1, 0, mo, TXP_TSAN_PC);			\
		return __atomic_load_n(a, TXP_TSAN_SC);				\
	})									\
	TXP_TSAN_FN(void, __tsan_atomic##n##_store, (volatile T *a, T v, int mo), { \
		ATOMIC(a, sizeof(T), 0, 1, mo, TXP_TSAN_PC);			\
		__atomic_store_n(a, v, TXP_TSAN_SC);				\
	})									\
	TXP_TSAN_FN(T, __tsan_atomic##n##_exchange, (volatile T *a, T v, int mo), { \
		ATOMIC(a, sizeof(T), 1, 1, mo, TXP_TSAN_PC);			\
		return __atomic_exchange_n(a, v, TXP_TSAN_SC);			\
	})									\
	TXP_TSAN_RMW(ATOMIC, n, T, fetch_add)					\
	TXP_TSAN_RMW(ATOMIC, n, T, fetch_sub)					\
	TXP_TSAN_RMW(ATOMIC, n, T, fetch_and)					\
	TXP_TSAN_RMW(ATOMIC, n, T, fetch_or)					\
	TXP_TSAN_RMW(ATOMIC, n, T, fetch_xor)					\
	TXP_TSAN_RMW(ATOMIC, n, T, fetch_nand)					\
	TXP_TSAN_FN(int, __tsan_atomic##n##_compare_exchange_strong,		\
		    (volatile T *a, T *e, T v, int mo, int fmo), {		\
		ATOMIC(a, sizeof(T), 1, 1, TXP_TSAN_CAS_MO(mo, fmo), TXP_TSAN_PC); \
		return __atomic_compare_exchange_n(a, e, v, 0, TXP_TSAN_SC, TXP_TSAN_SC); \
	})									\
	TXP_TSAN_FN(int, __tsan_atomic##n##_compare_exchange_weak,		\
		    (volatile T *a, T *e, T v, int mo, int fmo), {		\
		ATOMIC(a, sizeof(T), 1, 1, TXP_TSAN_CAS_MO(mo, fmo), TXP_TSAN_PC); \
		return __atomic_compare_exchange_n(a, e, v, 0, TXP_TSAN_SC, TXP_TSAN_SC); \
	})									\
	TXP_TSAN_FN(T, __tsan_atomic##n##_compare_exchange_val,			\
		    (volatile T *a, T e, T v, int mo, int fmo), {		\
		ATOMIC(a, sizeof(T), 1, 1, TXP_TSAN_CAS_MO(mo, fmo), TXP_TSAN_PC); \
		__atomic_compare_exchange_n(a, &e, v, 0, TXP_TSAN_SC, TXP_TSAN_SC); \
		return e;							\
	})

#define TXP_TSAN_ABI(PLAIN, ATOMIC, FENCE, INIT)					\
	TXP_TSAN_PLAIN_SIZE(PLAIN, 1)						\
	TXP_TSAN_PLAIN_SIZE(PLAIN, 2)						\
	TXP_TSAN_PLAIN_SIZE(PLAIN, 4)						\
	TXP_TSAN_PLAIN_SIZE(PLAIN, 8)						\
	TXP_TSAN_PLAIN_SIZE(PLAIN, 16)						\
	TXP_TSAN_FN(void, __tsan_read_range, (void *a, unsigned long size),	\
		    { PLAIN(a, size, 0, TXP_TSAN_PC); })			\
	TXP_TSAN_FN(void, __tsan_write_range, (void *a, unsigned long size),	\
		    { PLAIN(a, size, TXP_TSAN_WRITE, TXP_TSAN_PC); })		\
	TXP_TSAN_FN(void, __tsan_vptr_update, (void **vptr, void *v),		\
		    { (void)v; PLAIN(vptr, sizeof(*vptr), TXP_TSAN_WRITE, TXP_TSAN_PC); }) \
	TXP_TSAN_FN(void, __tsan_vptr_read, (void **vptr),			\
		    { PLAIN(vptr, sizeof(*vptr), 0, TXP_TSAN_PC); })		\
	TXP_TSAN_FN(void, __tsan_init, (void), { INIT(); })				\
	TXP_TSAN_FN(void, __tsan_func_entry, (void *pc), { (void)pc; })	\
	TXP_TSAN_FN(void, __tsan_func_exit, (void), { })			\
	TXP_TSAN_ATOMIC_SIZE(ATOMIC, 8, uint8_t)				\
	TXP_TSAN_ATOMIC_SIZE(ATOMIC, 16, uint16_t)				\
	TXP_TSAN_ATOMIC_SIZE(ATOMIC, 32, uint32_t)				\
	TXP_TSAN_ATOMIC_SIZE(ATOMIC, 64, uint64_t)				\
	TXP_TSAN_FN(void, __tsan_atomic_thread_fence, (int mo),			\
		    { FENCE(mo); __atomic_thread_fence(TXP_TSAN_SC); })		\
	TXP_TSAN_FN(void, __tsan_atomic_signal_fence, (int mo),			\
		    { (void)mo; __atomic_signal_fence(TXP_TSAN_SC); })

#endif
