/* Commit messages: the upstream reference of a queued stable patch, and a
 * mainline "Fixes:" line naming the upstream commit the message names. */
#include <stdlib.h>

#include "fuzz.h"
#include "stable_queue.h"

void fuzz_one(const uint8_t *data, size_t size)
{
	char *message = fuzz_text(data, size), upstream[41];

	if (!message)
		return;
	if (stable_find_upstream(message, upstream) != STABLE_FORM_NONE)
		(void)stable_names_as_fixed(message, upstream);
	(void)stable_names_as_fixed(message, "c1afdaff90538ef085b756454f12b29575411214");
	free(message);
}
