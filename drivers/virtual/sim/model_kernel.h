/*
 * model_kernel.h - a booted model kernel build: the shared object and the
 * `ath9k_model_driver` table it exports (see
 * modelkernel/tree/drivers/net/wireless/ath/ath9k/hw-model.h).
 *
 * The driver keeps its state in a static softc, so two boards that loaded
 * the same file through plain dlopen() would share one driver. Each load
 * therefore maps a private copy of the file (a memfd, or a temporary copy
 * where memfd is unavailable): one process can host any number of boards,
 * each with its own driver instance.
 */
#ifndef RB_SIM_MODEL_KERNEL_H
#define RB_SIM_MODEL_KERNEL_H

#include <stddef.h>

#include "virtual/modelkernel/tree/drivers/net/wireless/ath/ath9k/hw-model.h"

struct model_kernel {
	void *handle;
	/* The private copy stays open (or on disk) while loaded: the dynamic
	 * linker recognises an object by its path, so the path must not be
	 * reused by another board's copy before this one is unloaded. */
	int copy_fd;
	char copy_path[64];
	const struct ath9k_model_driver *driver;
	struct ath_softc *softc;	/* from probe; NULL until then */
	char release[128];		/* uname -r */
	char banner[256];		/* linux_banner without its newline */
};

/* An unloaded kernel (call before anything else). */
void model_kernel_init(struct model_kernel *kernel);

/*
 * Loads kernel_path privately and checks the ABI. 0; -ENOEXEC when the file
 * is not a model kernel build (not a shared object, no ath9k_model_driver,
 * another ABI version, a missing entry); -ENOENT/-EACCES/... for a file that
 * cannot be read. On failure `error` says why.
 */
int model_kernel_load(struct model_kernel *kernel, const char *kernel_path,
		      char *error, size_t error_len);
void model_kernel_unload(struct model_kernel *kernel);
int model_kernel_loaded(const struct model_kernel *kernel);

#endif
