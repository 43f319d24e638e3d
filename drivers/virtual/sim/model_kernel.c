/* model_kernel.c - loading a model kernel build as a private shared object. */
#include "virtual/sim/model_kernel.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int copy_file(int from, int to)
{
	char buffer[65536];
	ssize_t n;

	while ((n = read(from, buffer, sizeof(buffer))) > 0) {
		ssize_t done = 0;

		while (done < n) {
			ssize_t w = write(to, buffer + done, (size_t)(n - done));

			if (w < 0)
				return -errno;
			done += w;
		}
	}
	return n < 0 ? -errno : 0;
}

static int looks_like_elf(int fd)
{
	unsigned char magic[4];

	if (pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic))
		return 0;
	return memcmp(magic, "\177ELF", 4) == 0;
}

/* A memfd holding the build; its /proc/self/fd path is what dlopen sees. */
static int copy_to_memfd(struct model_kernel *kernel, int source)
{
	int fd = memfd_create("rackbisect-kernel", MFD_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	r = copy_file(source, fd);
	if (r < 0) {
		close(fd);
		return r;
	}
	kernel->copy_fd = fd;
	snprintf(kernel->copy_path, sizeof(kernel->copy_path), "/proc/self/fd/%d", fd);
	return 0;
}

/* Fallback where memfd is missing or not executable: a temporary file. */
static int copy_to_temp_file(struct model_kernel *kernel, int source)
{
	const char *dir = getenv("TMPDIR");
	int fd, r;

	if (!dir || !*dir || strlen(dir) > 32)
		dir = "/tmp";
	snprintf(kernel->copy_path, sizeof(kernel->copy_path),
		 "%s/rackbisect-kernel-XXXXXX", dir);
	fd = mkostemp(kernel->copy_path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (lseek(source, 0, SEEK_SET) < 0)
		r = -errno;
	else
		r = copy_file(source, fd);
	if (r < 0) {
		close(fd);
		unlink(kernel->copy_path);
		kernel->copy_path[0] = '\0';
		return r;
	}
	kernel->copy_fd = fd;
	return 0;
}

static void drop_copy(struct model_kernel *kernel)
{
	if (kernel->copy_fd >= 0)
		close(kernel->copy_fd);
	if (strncmp(kernel->copy_path, "/proc/", 6) != 0 && kernel->copy_path[0])
		unlink(kernel->copy_path);
	kernel->copy_fd = -1;
	kernel->copy_path[0] = '\0';
}

static int open_private_copy(struct model_kernel *kernel, int source,
			     char *error, size_t error_len)
{
	int r = copy_to_memfd(kernel, source);

	if (r == 0) {
		kernel->handle = dlopen(kernel->copy_path, RTLD_NOW | RTLD_LOCAL);
		if (kernel->handle)
			return 0;
		drop_copy(kernel);
	}
	r = copy_to_temp_file(kernel, source);
	if (r < 0) {
		snprintf(error, error_len, "cannot copy the kernel for loading: %s",
			 strerror(-r));
		return r;
	}
	kernel->handle = dlopen(kernel->copy_path, RTLD_NOW | RTLD_LOCAL);
	if (!kernel->handle) {
		snprintf(error, error_len, "not a loadable model kernel: %s", dlerror());
		drop_copy(kernel);
		return -ENOEXEC;
	}
	return 0;
}

static int driver_complete(const struct ath9k_model_driver *d)
{
	return d->release && d->banner && d->probe && d->remove && d->start &&
	       d->stop && d->config && d->tx && d->tx_tasklet && d->tim_timer &&
	       d->rx_beacon && d->rx_cab_done && d->rx_pspoll_data && d->run_work;
}

static int check_driver(struct model_kernel *kernel, char *error, size_t error_len)
{
	const struct ath9k_model_driver *driver = dlsym(kernel->handle, "ath9k_model_driver");

	if (!driver) {
		snprintf(error, error_len, "no ath9k_model_driver symbol: not a model kernel build");
		return -ENOEXEC;
	}
	if (driver->abi_version != ATH9K_MODEL_ABI_VERSION) {
		snprintf(error, error_len, "model kernel ABI %d, the simulator speaks %d",
			 driver->abi_version, ATH9K_MODEL_ABI_VERSION);
		return -ENOEXEC;
	}
	if (!driver_complete(driver)) {
		snprintf(error, error_len, "ath9k_model_driver lacks an entry");
		return -ENOEXEC;
	}
	kernel->driver = driver;
	snprintf(kernel->release, sizeof(kernel->release), "%s", driver->release);
	snprintf(kernel->banner, sizeof(kernel->banner), "%.*s",
		 (int)strcspn(driver->banner, "\n"), driver->banner);
	return 0;
}

void model_kernel_init(struct model_kernel *kernel)
{
	*kernel = (struct model_kernel){ .copy_fd = -1 };
}

int model_kernel_load(struct model_kernel *kernel, const char *kernel_path,
		      char *error, size_t error_len)
{
	int source, r;

	model_kernel_init(kernel);
	source = open(kernel_path, O_RDONLY | O_CLOEXEC);
	if (source < 0) {
		r = -errno;
		snprintf(error, error_len, "%s: %s", kernel_path, strerror(errno));
		return r;
	}
	if (!looks_like_elf(source)) {
		close(source);
		snprintf(error, error_len, "%s: not a model kernel build (no ELF header)",
			 kernel_path);
		return -ENOEXEC;
	}
	r = open_private_copy(kernel, source, error, error_len);
	close(source);
	if (r < 0)
		return r;
	r = check_driver(kernel, error, error_len);
	if (r < 0)
		model_kernel_unload(kernel);
	return r;
}

void model_kernel_unload(struct model_kernel *kernel)
{
	if (kernel->handle)
		dlclose(kernel->handle);
	drop_copy(kernel);
	model_kernel_init(kernel);
}

int model_kernel_loaded(const struct model_kernel *kernel)
{
	return kernel->handle != NULL && kernel->driver != NULL;
}
