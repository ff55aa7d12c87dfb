/* Validated contexts' fault reports name the guest's stream, not the shadow (msm_fault_guest_addr.c). */
#ifndef FERRY_HOST_FAULT_GUEST_ADDR_H
#define FERRY_HOST_FAULT_GUEST_ADDR_H

#include "core/msm/msm_family.h"

struct fault_guest_addr {
	uint64_t iova;      /* guest GPU address */
	uint32_t bo_id;
	uint64_t bo_offset; /* bytes */
	bool draw_state;
};
/* The guest address a shadow address of one of ctx's in-flight submits copies. */
bool fault_guest_address(const struct host_ctx *ctx, uint64_t shadow_iova, struct fault_guest_addr *out);
/* Validated contexts: malloc'd lines for the report header (the crash location as
 * "guest: IB1 0x... (bo N +0x...)", the dump's last-packets with guest addresses, and a note that
 * the dump's own addresses are shadows). NULL for other contexts or on ENOMEM. */
char *fault_guest_lines(const struct host_ctx *ctx, const struct msm_fault *f, const char *kernel_text);

#endif
