/* The GPU device factory's render-node paths: one longer than it keeps is refused with a clear
 * reason, never cut to name another file; so is a render-node kdev opened on one. */
#include <errno.h>
#include <string.h>

#include "backend/device.h"
#include "backend/render_node.h"
#include "test.h"

static void test_long_path(void)
{
	char path[200] = "/dev/dri/";
	memset(path + strlen(path), 'x', sizeof(path) - strlen(path) - 1);
	path[sizeof(path) - 1] = '\0';
	struct gpu_device *d = NULL;
	char why[256] = "";
	CHECK_EQ(gpu_device_create(path, &d, why, sizeof(why)), -ENAMETOOLONG);
	CHECK(!d);
	CHECK(strstr(why, "at most 63 bytes"));
	errno = 0;
	CHECK(!render_node_open(path, RENDER_NODE_MSM));
	CHECK_EQ(errno, ENAMETOOLONG);
}

static void test_path_that_fits(void)
{
	/* A short path is taken as it is: the failure is the open's, not the name's. */
	struct gpu_device *d = NULL;
	char why[256] = "";
	CHECK(gpu_device_create("/dev/dri/renderD250", &d, why, sizeof(why)) < 0);
	CHECK(strstr(why, "/dev/dri/renderD250"));
}

int main(void)
{
	RUN_TEST(test_long_path);
	RUN_TEST(test_path_that_fits);
	return test_finish();
}
