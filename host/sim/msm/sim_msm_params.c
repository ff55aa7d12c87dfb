/* The simulated parts (a630, a660) and GET_PARAM/SET_PARAM with 6.1's checks and values
 * (shared/reference/kernel-uapi-msm-v3d.md §2.1, §7.1). MAX_FREQ is each SoC's highest GPU OPP
 * from its device tree (sdm845 710 MHz, sm8350 840 MHz). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim_msm_priv.h"

static const struct sim_msm_model models[] = {
	{
		.name = "a630", .gpu_id = 630, .chip_id = 0x06030002,
		.core = 6, .major = 3, .minor = 0, .patch = 2,
		.gmem_size = 1u << 20, .gmem_base = 0x100000,
		.va_size = 4ull << 30, .max_freq = 710000000,
	},
	{
		/* a650 family: GMEM_BASE 0, 16 GiB per-process VA. */
		.name = "a660", .gpu_id = 660, .chip_id = 0x06060001,
		.core = 6, .major = 6, .minor = 0, .patch = 1,
		.gmem_size = 0x180000, .gmem_base = 0,
		.va_size = 16ull << 30, .max_freq = 840000000,
	},
};

const char *const sim_msm_models[] = { "a630", "a660", NULL };

const struct sim_msm_model *sim_msm_model_find(const char *name)
{
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (!strcmp(models[i].name, name))
			return &models[i];
	return NULL;
}

int msms_ioctl_get_param(struct msms_open *o, struct drm_msm_param *a)
{
	const struct sim_msm_model *m = o->dev->model;
	if (a->pipe != MSM_PIPE_3D0 || a->pad != 0)
		return -EINVAL;
	if (a->len != 0) /* no pointer params yet */
		return -EINVAL;
	switch (a->param) {
	case MSM_PARAM_GPU_ID: a->value = m->gpu_id; return 0;
	case MSM_PARAM_GMEM_SIZE: a->value = m->gmem_size; return 0;
	case MSM_PARAM_GMEM_BASE: a->value = m->gmem_base; return 0;
	case MSM_PARAM_CHIP_ID:
		a->value = (uint64_t)m->core << 24 | (uint64_t)m->major << 16 | (uint64_t)m->minor << 8 | m->patch;
		return 0;
	case MSM_PARAM_MAX_FREQ: a->value = m->max_freq; return 0;
	case MSM_PARAM_TIMESTAMP: a->value = cp_always_on_ticks(); return 0;
	case MSM_PARAM_PRIORITIES: a->value = MSMS_NR_PRIORITIES; return 0;
	case MSM_PARAM_PP_PGTABLE: a->value = 0; return 0;
	case MSM_PARAM_FAULTS: a->value = (uint64_t)o->dev->global_faults + o->faults; return 0;
	case MSM_PARAM_SUSPENDS: a->value = o->dev->suspends; return 0;
	case MSM_PARAM_VA_START: a->value = o->vm.base; return 0;
	case MSM_PARAM_VA_SIZE: a->value = o->vm.size; return 0;
	default: return -EINVAL;
	}
}

int msms_ioctl_set_param(struct msms_open *o, struct drm_msm_param *a)
{
	if (a->pipe != MSM_PIPE_3D0 || a->pad != 0)
		return -EINVAL;
	switch (a->param) {
	case MSM_PARAM_COMM:
	case MSM_PARAM_CMDLINE:
		if (a->len > MSMS_PAGE_SIZE)
			return -EINVAL;
		break;
	default:
		if (a->len != 0)
			return -EINVAL;
	}
	switch (a->param) {
	case MSM_PARAM_COMM:
	case MSM_PARAM_CMDLINE: {
		const char *src = (const char *)(uintptr_t)a->value;
		if (a->len && !src)
			return -EFAULT;
		char *dst = a->param == MSM_PARAM_COMM ? o->comm : o->cmdline;
		size_t cap = a->param == MSM_PARAM_COMM ? sizeof(o->comm) : sizeof(o->cmdline);
		/* The kernel keeps the whole string; crash logs here keep what fits. */
		size_t n = a->len < cap - 1 ? a->len : cap - 1;
		if (n) /* len 0 may come with a NULL value: memcpy's pointers must be valid even then */
			memcpy(dst, src, n);
		dst[n] = '\0';
		return 0;
	}
	case MSM_PARAM_SYSPROF:
		return -EPERM; /* needs CAP_SYS_ADMIN, which no sim client has */
	default:
		return -EINVAL;
	}
}
