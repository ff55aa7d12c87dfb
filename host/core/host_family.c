/* The families the host can serve, and finding one by device name, by the family id of the wire or
 * by a submit message kind. */
#include <stddef.h>

#include "family.h"

static const struct host_family_ops *const families[] = { &msm_family_ops, &v3d_family_ops };

const struct host_family_ops *host_family_for_device(enum gpu_family family)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (families[i]->device_family == family)
			return families[i];
	return NULL;
}

const struct host_family_ops *host_family_by_id(uint32_t family)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (families[i]->family == family)
			return families[i];
	return NULL;
}

host_request_fn host_family_submit_handler(const struct host_family_ops *fam, uint32_t kind)
{
	for (uint32_t i = 0; i < fam->nr_submits; i++)
		if (fam->submits[i].kind == kind)
			return fam->submits[i].handle;
	return NULL;
}

const struct host_family_ops *host_family_for_submit(uint32_t kind)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (host_family_submit_handler(families[i], kind))
			return families[i];
	return NULL;
}
