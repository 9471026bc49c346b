/*
 * dep.c - publishing an initialised object through a pointer, as RCU and
 * drivers' descriptor rings do: start_xmit fills objs[seq] with plain
 * stores, then publishes its address with smp_store_release (the
 * kernel's rcu_assign_pointer()); the poll reads the pointer and then the
 * object's field through it.  Linux's memory model orders the field's
 * read after the pointer's by the address dependency (rcu_dereference()
 * is READ_ONCE() since 4.15): no data race, and the field is always
 * initialised.
 * -DDEP_ONCE: the poll reads the pointer with READ_ONCE (rcu_dereference);
 * -DDEP_ACQUIRE: with smp_load_acquire, the reference.
 */
#include "txpath/linux.h"

struct obj {
	u32 val;
	u32 pad;
};

struct probe {
	struct obj objs[16];
	struct obj *ptr __attribute__((aligned(8)));
};

static void probe_xmit(struct probe *p, u32 seq)
{
	struct obj *o;

	if (seq >= 16)
		return;
	o = &p->objs[seq];
	o->val = seq;
	smp_store_release(&p->ptr, o);
}

static void probe_poll(struct probe *p)
{
#if defined(DEP_ONCE)
	struct obj *o = READ_ONCE(p->ptr);
#elif defined(DEP_ACQUIRE)
	struct obj *o = smp_load_acquire(&p->ptr);
#else
#error "pick a variant: -DDEP_..."
#endif

	if (o && o->val != (u32)(o - p->objs))
		printk(KERN_ERR "BUG! dep: object %d not initialised\n", (int)(o - p->objs));
}

#define ADV_NAME "adv-dep"
#include "adv_plugin.h"
