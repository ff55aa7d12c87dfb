/* The families the host can serve, and finding one by device name or by the family id of the wire. */
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
