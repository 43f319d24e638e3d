/* LAVA's answers: a job's state and its /tests/ page (JSON), its log
 * (YAML), and the verdict made of them. The same input goes to each. */
#include <stdlib.h>

#include "fuzz.h"
#include "lava/results.h"

void fuzz_one(const uint8_t *data, size_t size)
{
	struct lava_job_state state;
	struct lava_job_error job_error = { 0 };
	struct lava_output output;
	char *text = fuzz_text(data, size), error[512];

	if (!text)
		return;
	if (lava_job_state_parse(text, &state, error, sizeof(error)) == 0) {
		(void)lava_job_error_parse(text, &job_error);
		(void)lava_classify(&state, &job_error);
	}
	if (lava_output_parse(text, &output, error, sizeof(error)) == 0)
		lava_output_free(&output);
	free(text);
}
