/*
 * replay.c - the replay policy (check build only): the choices of a
 * schedule string, each at its branch point;
 * the default everywhere else.  A choice the branch does not offer is
 * noted (policy_replay_refused()) and the default taken.
 */
#include "check/search/policy.h"

static int replay_choose(struct rt_policy *p, const struct rt_branch *b, unsigned index)
{
	struct policy_replay *r = (struct policy_replay *)p;
	int a;

	if (r->next == r->n || r->choices[r->next].index != index)
		return -1;
	a = r->choices[r->next++].action;
	if (!rt_branch_legal(b, a) && r->refused < 0)
		r->refused = (int)(r->next - 1);
	return a;
}

static void replay_begin(struct rt_policy *p)
{
	struct policy_replay *r = (struct policy_replay *)p;

	r->next = 0;
	r->refused = -1;
}

void policy_replay_init(struct policy_replay *r, const struct replay_choice *choices,
			unsigned n)
{
	*r = (struct policy_replay){ .p = { .begin = replay_begin, .choose = replay_choose },
				     .choices = choices, .n = n };
}

unsigned policy_replay_reached(const struct policy_replay *r)
{
	return r->next;
}

int policy_replay_refused(const struct policy_replay *r)
{
	return r->refused;
}
