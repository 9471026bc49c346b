/*
 * random.c - the random policy (check build only): at every branch, an
 * action drawn uniformly among those it offers.
 */
#include "check/search/policy.h"
#include "check/search/rng.h"

static int random_choose(struct rt_policy *p, const struct rt_branch *b, unsigned index)
{
	struct policy_random *r = (struct policy_random *)p;

	(void)index;
	return rt_branch_action(b, (unsigned)(rng_next(&r->rng) % rt_branch_nactions(b)));
}

static void random_begin(struct rt_policy *p)
{
	struct policy_random *r = (struct policy_random *)p;

	r->rng = r->seed;
}

void policy_random_init(struct policy_random *r, uint64_t seed)
{
	*r = (struct policy_random){ .p = { .begin = random_begin, .choose = random_choose },
				     .seed = seed };
}
