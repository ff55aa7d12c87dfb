/* The virtio-gpu uAPI of Linux 6.1 that Debian 12's libdrm header (virtgpu_drm.h) predates:
 * device parameters, context types (CONTEXT_INIT), blob resources and EXECBUFFER's ring index.
 * Layouts and numbers as include/uapi/drm/virtgpu_drm.h has them. */
#ifndef FERRY_VIRTGPU_EXT_H
#define FERRY_VIRTGPU_EXT_H

#include <drm.h>
#include <virtgpu_drm.h>

#define FERRY_VIRTGPU_PARAM_RESOURCE_BLOB        3
#define FERRY_VIRTGPU_PARAM_HOST_VISIBLE         4
#define FERRY_VIRTGPU_PARAM_CONTEXT_INIT         6
#define FERRY_VIRTGPU_PARAM_SUPPORTED_CAPSET_IDS 7

#define FERRY_DRM_VIRTGPU_RESOURCE_CREATE_BLOB 0x0a
#define FERRY_DRM_VIRTGPU_CONTEXT_INIT         0x0b

#define FERRY_VIRTGPU_BLOB_MEM_HOST3D        0x0002
#define FERRY_VIRTGPU_BLOB_FLAG_USE_MAPPABLE  0x0001
#define FERRY_VIRTGPU_BLOB_FLAG_USE_SHAREABLE 0x0002

struct ferry_virtgpu_resource_create_blob {
	__u32 blob_mem;
	__u32 blob_flags;
	__u32 bo_handle;  /* out */
	__u32 res_handle; /* out */
	__u64 size;
	__u32 pad;
	__u32 cmd_size;
	__u64 cmd;
	__u64 blob_id;
};

#define FERRY_VIRTGPU_CONTEXT_PARAM_CAPSET_ID 0x0001
#define FERRY_VIRTGPU_CONTEXT_PARAM_NUM_RINGS 0x0002

struct ferry_virtgpu_context_set_param {
	__u64 param;
	__u64 value;
};

struct ferry_virtgpu_context_init {
	__u32 num_params;
	__u32 pad;
	__u64 ctx_set_params; /* an array of struct ferry_virtgpu_context_set_param */
};

#define FERRY_VIRTGPU_EXECBUF_RING_IDX 0x04

/* 6.1's EXECBUFFER argument: the older one with ring_idx after it. */
struct ferry_virtgpu_execbuffer_ring {
	__u32 flags;
	__u32 size;
	__u64 command;
	__u64 bo_handles;
	__u32 num_bo_handles;
	__s32 fence_fd;
	__u32 ring_idx;
	__u32 pad;
};

#define FERRY_DRM_IOCTL_VIRTGPU_RESOURCE_CREATE_BLOB                                              \
	DRM_IOWR(DRM_COMMAND_BASE + FERRY_DRM_VIRTGPU_RESOURCE_CREATE_BLOB, struct ferry_virtgpu_resource_create_blob)
#define FERRY_DRM_IOCTL_VIRTGPU_CONTEXT_INIT                                                      \
	DRM_IOWR(DRM_COMMAND_BASE + FERRY_DRM_VIRTGPU_CONTEXT_INIT, struct ferry_virtgpu_context_init)
#define FERRY_DRM_IOCTL_VIRTGPU_EXECBUFFER_RING                                                   \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VIRTGPU_EXECBUFFER, struct ferry_virtgpu_execbuffer_ring)

_Static_assert(sizeof(struct ferry_virtgpu_resource_create_blob) == 48, "6.1's layout");
_Static_assert(sizeof(struct ferry_virtgpu_context_init) == 16, "6.1's layout");
_Static_assert(sizeof(struct ferry_virtgpu_execbuffer_ring) == 40, "6.1's layout (36 bytes, padded)");

#endif
