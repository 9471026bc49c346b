/*
 * fiber.c - stacks to run the explorer's contexts on (check build only).
 *
 * On x86-64 a switch is six pushes, a stack-pointer swap and six pops;
 * elsewhere ucontext does it.  (AddressSanitizer intercepts swapcontext
 * and clears the shadow of the whole target stack at every switch, which
 * makes it a hundred times slower.)  AddressSanitizer and ThreadSanitizer
 * are told of each switch through their fiber interfaces.
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check/runtime/fiber.h"
#include "sync/sync.h"

#if defined(__SANITIZE_ADDRESS__)
#define FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIBER_ASAN 1
#endif
#endif

#ifdef FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef TXP_TSAN
#include <sanitizer/tsan_interface.h>
#endif

/* Deep enough for the library's deepest path under AddressSanitizer's
 * larger frames; only what is touched is ever backed by memory. */
#define FIBER_STACK (1u << 20)

/* What the fiber being started runs: its first switch passes no pointer. */
static void (*starting_entry)(void);

/* Switched to: tell AddressSanitizer the switch is complete. */
static void switched_in(struct fiber *f)
{
#ifdef FIBER_ASAN
	__sanitizer_finish_switch_fiber(f ? f->asan_fake : NULL, NULL, NULL);
#else
	(void)f;
#endif
}

static void fiber_start(void)
{
	void (*entry)(void) = starting_entry;

	switched_in(NULL);
	entry();
}

#ifdef FIBER_SWAP_X86_64
/*
 * fiber_swap(&from->sp, to->sp): push the registers the System V ABI has
 * a callee keep, save the stack pointer, load the other, pop its
 * registers and return on its stack.
 */
void txp__fiber_swap(void **save_sp, void *load_sp);
__asm__(".pushsection .text\n"
	".globl txp__fiber_swap\n"
	".hidden txp__fiber_swap\n"
	".type txp__fiber_swap, @function\n"
	"txp__fiber_swap:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size txp__fiber_swap, .-txp__fiber_swap\n"
	".popsection\n");

/* A new stack as txp__fiber_swap() leaves one: six zero registers, then
 * fiber_start as the return address, then a zero where fiber_start's own
 * return address would be (the ABI wants rsp + 8 aligned at entry). */
static int fiber_setup(struct fiber *f, void *base, size_t size)
{
	uintptr_t top = ((uintptr_t)base + size) & ~(uintptr_t)15;
	void **sp = (void **)top;

	*--sp = NULL;
	*--sp = (void *)(uintptr_t)fiber_start;
	for (int i = 0; i < 6; i++)
		*--sp = NULL;
	f->sp = sp;
	return 0;
}

static void fiber_swap(struct fiber *from, struct fiber *to)
{
	txp__fiber_swap(&from->sp, to->sp);
}
#else
static int fiber_setup(struct fiber *f, void *base, size_t size)
{
	if (getcontext(&f->uc) != 0)
		return -1;
	f->uc.uc_stack.ss_sp = base;
	f->uc.uc_stack.ss_size = size;
	f->uc.uc_link = NULL;
	makecontext(&f->uc, fiber_start, 0);
	return 0;
}

static void fiber_swap(struct fiber *from, struct fiber *to)
{
	swapcontext(&from->uc, &to->uc);
}
#endif

void fiber_init_thread(struct fiber *f)
{
	memset(f, 0, sizeof(*f));
#ifdef FIBER_ASAN
	{
		pthread_attr_t attr;
		void *addr;

		if (pthread_getattr_np(pthread_self(), &attr) == 0) {
			if (pthread_attr_getstack(&attr, &addr, &f->asan_size) == 0)
				f->asan_bottom = addr;
			pthread_attr_destroy(&attr);
		}
	}
#endif
#ifdef TXP_TSAN
	f->tsan = __tsan_get_current_fiber();
#endif
}

int fiber_prepare(struct fiber *f, void (*entry)(void))
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!f->stack) {
		/* The lowest page is a guard: an overflow faults at once. */
		void *p = mmap(NULL, FIBER_STACK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

		if (p == MAP_FAILED)
			return -1;
		mprotect(p, page, PROT_NONE);
		f->stack = p;
		f->stack_size = FIBER_STACK;
	}
#ifdef FIBER_ASAN
	/* The frames of the last run were never unwound. */
	__asan_unpoison_memory_region((char *)f->stack + page, f->stack_size - page);
	f->asan_bottom = (char *)f->stack + page;
	f->asan_size = f->stack_size - page;
	f->asan_fake = NULL;
#endif
#ifdef TXP_TSAN
	if (f->tsan)
		__tsan_destroy_fiber(f->tsan);
	f->tsan = __tsan_create_fiber(0);
#endif
	f->entry = entry;
	return fiber_setup(f, (char *)f->stack + page, f->stack_size - page);
}

void fiber_switch(struct fiber *from, struct fiber *to, int done)
{
	if (to->entry) {
		starting_entry = to->entry;
		to->entry = NULL;
	}
#ifdef FIBER_ASAN
	__sanitizer_start_switch_fiber(done ? NULL : &from->asan_fake, to->asan_bottom, to->asan_size);
#else
	(void)done;
#endif
#ifdef TXP_TSAN
	__tsan_switch_to_fiber(to->tsan, 0);
#endif
	fiber_swap(from, to);
	switched_in(from);
}
