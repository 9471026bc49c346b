/*
 * no_cfg.h - the one error of a constructor given no configuration
 * (txp_dev_create(), txp_sim_create(), the network drivers' creates):
 * written once, so every one says it alike.
 */
#ifndef TXP_CORE_NO_CFG_H
#define TXP_CORE_NO_CFG_H

#include <stdbool.h>
#include <stdio.h>

/* "no WHAT configuration (cfg is NULL)" into err (the bool + err buffer
 * convention); returns false, for the validator that refuses it. */
static inline bool txp__no_cfg(const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "no %s configuration (cfg is NULL)", what);
	return false;
}

#endif
