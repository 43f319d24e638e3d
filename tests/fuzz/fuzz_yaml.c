/* Lab, job and nightly files: one YAML input through all three loaders,
 * which must answer every input with a lab/job or a file:line:col error. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config.h"
#include "fuzz.h"
#include "job_config.h"
#include "nightly.h"

void fuzz_one(const uint8_t *data, size_t size)
{
	struct lab *lab = NULL;
	struct job *job = NULL;
	struct nightly_config *nightly = NULL;
	char path[64], error[1024];
	int fd;

	if (fuzz_file(data, size, &fd, path, sizeof(path)) != 0)
		return;
	if (lab_load(path, &lab, error, sizeof(error)) == 0)
		lab_free(lab);
	if (job_load(path, &job, error, sizeof(error)) == 0)
		job_free(job);
	if (nightly_config_load(path, &nightly, error, sizeof(error)) == 0)
		nightly_config_free(nightly);
	close(fd);
}
