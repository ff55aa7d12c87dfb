/* The cases vk_image_ops runs: transfer-engine cases (vk_image_cases.c) and the two that need
 * shaders (vk_shader_cases.c). Each prints "case NAME: PASS|FAIL ..." and returns its verdict. */
#ifndef FERRY_E2E_VK_IMAGE_CASES_H
#define FERRY_E2E_VK_IMAGE_CASES_H

#include <stdbool.h>
#include <stdint.h>

#include "vk_context.h"

struct case_env {
	struct vk_ctx *ctx;
	uint64_t timeout_ns;
	uint64_t bytes_checked;
	const char *last_wait;  /* vk_result_name of the last fence wait (for --case draw/dispatch) */
};

struct image_case {
	const char *name;
	bool (*run)(struct case_env *env);
	bool in_default_set;  /* false: only when named (the shader cases) */
	const char *about;
};

extern const struct image_case image_cases[];
extern const uint32_t image_case_count;

bool case_render_pass_clear(struct case_env *env);        /* vk_render_pass_case.c */
bool case_render_pass_clear_depth(struct case_env *env);
bool case_empty_submit(struct case_env *env);              /* vk_submit_case.c */
bool case_timeline_semaphore(struct case_env *env);        /* vk_timeline_case.c */
bool case_draw(struct case_env *env);                      /* vk_shader_cases.c */
bool case_dispatch(struct case_env *env);

#endif
