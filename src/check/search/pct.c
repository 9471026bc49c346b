/*
 * pct.c - probabilistic concurrency testing (check build only), counted in
 * preemptions as the bounded search counts them: the running context goes
 * on while it can; at each change point it is preempted, for another
 * context drawn at random; wherever it cannot go on, who runs next is
 * drawn at random (no preemption).  So a schedule of depth D makes D
 * preemptions (fewer if it ends first), each at a random step.  (Classic
 * PCT's priorities count ordering constraints instead: the 1-preemption
 * 2.6.9 bug needs the completion context both ahead of CPU 1 and behind
 * it, which no single change point gives.)
 */
#include "check/search/policy.h"
#include "check/search/rng.h"

/* A context of mask drawn at random. */
static int random_ctx(struct policy_pct *pct, unsigned mask)
{
	unsigned k = (unsigned)(rng_next(&pct->rng) % (unsigned)__builtin_popcount(mask));

	for (int i = 0; i < RT_MAX_CTX; i++)
		if ((mask & (1u << i)) && k-- == 0)
			return i;
	return __builtin_ctz(mask);
}

static int pct_choose(struct rt_policy *p, const struct rt_branch *b, unsigned index)
{
	struct policy_pct *pct = (struct policy_pct *)p;
	unsigned others = b->cur >= 0 ? b->enabled & ~(1u << b->cur) : b->enabled;

	(void)index;
	if (b->cur >= 0 && (!pct->pending || !others))
		return b->cur;
	pct->pending = false;
	return random_ctx(pct, others);
}

/* A change point is a step: the next branch switches. */
static void pct_step(struct rt_policy *p, unsigned steps)
{
	struct policy_pct *pct = (struct policy_pct *)p;

	if (pct->next < pct->nchange && steps >= pct->change[pct->next]) {
		pct->next++;
		pct->pending = true;
	}
}

static void pct_begin(struct rt_policy *p)
{
	struct policy_pct *pct = (struct policy_pct *)p;

	pct->rng = pct->seed;
	pct->next = 0;
	pct->pending = false;
}

void policy_pct_init(struct policy_pct *pct, uint64_t seed, const unsigned *change,
		     unsigned nchange)
{
	*pct = (struct policy_pct){ .p = { .begin = pct_begin, .choose = pct_choose,
					   .step = pct_step },
				    .seed = seed, .change = change, .nchange = nchange };
}
