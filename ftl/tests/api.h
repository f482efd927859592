/* SPDX-License-Identifier: GPL-2.0 */
/*
 * api.h - what test_api.c and test_gc.c share: a small FTL configuration
 * and the shadow store set up and checked around it. Include after
 * <cmocka.h>, "shadow.h" and "ok.h".
 */
#ifndef FTL_TESTS_API_H
#define FTL_TESTS_API_H

static inline void small_cfg(struct ftl_config *cfg, u32 ppb, u64 lp, u32 op,
		      enum ftl_gc_policy policy)
{
	ftl_config_init(cfg, lp);
	cfg->pages_per_block = ppb;
	cfg->op_percent = op;
	cfg->gc_policy = policy;
}

static inline void sh_init(struct shadow *sh, const struct ftl_config *cfg)
{
	int err = shadow_init(sh, cfg);

	if (err)
		fail_msg("shadow_init: %d", err);
	OK(sh, shadow_verify(sh));
}

static inline void sh_fini(struct shadow *sh)
{
	OK(sh, shadow_verify(sh));
	OK(sh, shadow_fini(sh));
}

#endif /* FTL_TESTS_API_H */
