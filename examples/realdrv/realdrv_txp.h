/*
 * realdrv_txp.h - what the glues of examples/realdrv/ share: the plugin
 * of a real driver's transmit path.  Its private area is the kernel's
 * struct net_device, then the glue's adapter (netdev_priv()); the core
 * takes its xmit lock (TXP_LOCK_CORE, as the kernel's HARD_TX_LOCK);
 * start_xmit is the driver's ndo_start_xmit, poll its NAPI poll.
 */
#ifndef REALDRV_TXP_H
#define REALDRV_TXP_H

#include <txpath/kernel.h>

#define REALDRV_TXP_PLUGIN(var, drv, chip, adapter, nring, open_fn, stop_fn, poll_fn)	\
	static struct txp_plugin var = {						\
		TXP_PLUGIN_INIT,							\
		.name = drv,								\
		.summary = "Linux's " drv " (" chip "), its transmit path as the kernel has it", \
		.lock = TXP_LOCK_CORE,							\
		.priv_size = TXP_NETDEV_PRIV_SIZE(sizeof(adapter)),			\
		.ring = (nring),							\
		.max_frags = MAX_SKB_FRAGS,						\
		.open = (open_fn),							\
		.stop = (stop_fn),							\
		.start_xmit = txp_ndo_start_xmit,					\
		.poll = (poll_fn),							\
	};										\
	TXP_PLUGIN(var)

#endif
