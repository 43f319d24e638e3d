/* lab_round.c - groups of runs, each one ref built then scheduled, all at once. */
#include "lab_round.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

void lab_round_init(struct lab_round *round, struct lab_session *session, const char *tree,
		    const struct lab_round_hooks *hooks)
{
	memset(round, 0, sizeof(*round));
	round->session = session;
	round->environment = session->environment;
	round->environment.run_queued = hooks->run_queued;
	round->environment.run_queued_data = hooks->data;
	round->tree = tree ? tree : session->tree;
	round->hooks = *hooks;
}

void lab_round_clear(struct lab_round *round)
{
	size_t i;

	for (i = 0; i < round->group_count; i++) {
		scheduler_free(round->groups[i].scheduler);
		free(round->groups[i].boards);
	}
	free(round->groups);
	round->groups = NULL;
	round->group_count = round->groups_left = 0;
}

struct lab_round_group *lab_round_add(struct lab_round *round, const char *ref,
				      const struct job_workload *workload, unsigned int repeat)
{
	struct lab_round_group *grown, *group;

	grown = realloc(round->groups, (round->group_count + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	round->groups = grown;
	group = &round->groups[round->group_count++];
	memset(group, 0, sizeof(*group));
	group->owner = round;
	snprintf(group->ref, sizeof(group->ref), "%s", ref);
	group->workload = workload;
	group->repeat = repeat ? repeat : 1;
	group->boards = calloc(round->session->selected_count + 1, sizeof(*group->boards));
	return group->boards ? group : NULL;
}

struct lab_round_group *lab_round_find(struct lab_round *round, const char *ref)
{
	size_t i;

	for (i = 0; i < round->group_count; i++) {
		if (strcmp(round->groups[i].ref, ref) == 0)
			return &round->groups[i];
	}
	return NULL;
}

bool lab_round_running(const struct lab_round *round)
{
	return round->groups_left > 0;
}

static void trouble(struct lab_round *round, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

static void trouble(struct lab_round *round, const char *format, ...)
{
	char reason[512];
	va_list args;

	va_start(args, format);
	vsnprintf(reason, sizeof(reason), format, args);
	va_end(args);
	round->hooks.trouble(reason, round->hooks.data);
}

static void group_finished(struct lab_round_group *group)
{
	struct lab_round *round = group->owner;

	if (group->finished)
		return;
	group->finished = true;
	if (--round->groups_left == 0)
		round->hooks.done(round->hooks.data);
}

static void on_group_done(struct scheduler *scheduler, void *data)
{
	(void)scheduler;
	group_finished(data);
}

static void start_group_runs(struct lab_round_group *group)
{
	struct lab_session *session = group->owner->session;
	struct scheduler_options options = {
		.environment = &group->owner->environment,
		.pool = &session->schedulers,
		.boards = group->boards,
		.board_count = group->board_count,
		.spec = {
			.commit = group->result.commit,
			.build_id = group->build_id,
			.image = group->result.status == 0 ? group->result.image : NULL,
			.modules = group->result.modules[0] ? group->result.modules : NULL,
			.release = group->result.release,
			.build_failure = group->result.status == 0 ? NULL : group->build_failure,
		},
		.repeat_factor = group->repeat,
		.only_workload = group->workload,
	};

	snprintf(group->build_failure, sizeof(group->build_failure),
		 "build of %.12s failed (log: %s)", group->result.commit, group->result.log);
	if (scheduler_start(&options, on_group_done, group, &group->scheduler) != 0) {
		trouble(group->owner, "cannot schedule the runs of %.12s", group->result.commit);
		group_finished(group);
	}
}

static void on_group_built(struct build *build, const struct build_result *result, void *data)
{
	struct lab_round_group *group = data;
	struct lab_round *round = group->owner;

	(void)build;
	group->result = *result;
	group->result.error_text = NULL;
	if (result->status && result->status != -ENOEXEC) {
		trouble(round, "building %s: %s", group->ref,
			result->error_text ? result->error_text : strerror(-result->status));
		group_finished(group);
		return;
	}
	log_event(&round->session->log, LOG_INFO, NULL, 0,
		  result->status ? "build-failed" : "built", "%s %s%s", result->commit,
		  result->status ? result->log : result->release, result->cached ? " (cached)" : "");
	if (round->hooks.built)
		round->hooks.built(result, round->hooks.data);
	lab_session_record_build(round->session, &group->result, &group->build_id);
	start_group_runs(group);
}

int lab_round_launch(struct lab_round *round)
{
	size_t i;

	if (round->group_count == 0)
		return -EINVAL;
	round->groups_left = round->group_count;
	for (i = 0; i < round->group_count; i++) {
		struct lab_round_group *group = &round->groups[i];
		struct build_request request;

		lab_session_build_request(round->session, round->tree, group->ref, &request);
		if (build_start(&round->session->loop, &request, on_group_built, group, NULL) != 0) {
			trouble(round, "cannot start building %s", group->ref);
			group_finished(group);
		}
	}
	return 0;
}

int lab_round_runs(const struct lab_round *round, struct store_run_list *list)
{
	size_t g, c, count, n = 0;

	memset(list, 0, sizeof(*list));
	for (g = 0; g < round->group_count; g++) {
		if (round->groups[g].scheduler) {
			scheduler_cells(round->groups[g].scheduler, &count);
			n += count;
		}
	}
	list->runs = calloc(n + 1, sizeof(*list->runs));
	if (!list->runs)
		return -ENOMEM;
	for (g = 0; g < round->group_count; g++) {
		const struct scheduler_cell *cells;

		if (!round->groups[g].scheduler)
			continue;
		cells = scheduler_cells(round->groups[g].scheduler, &count);
		for (c = 0; c < count; c++) {
			if (cells[c].run_id && store_run_get(round->session->store, cells[c].run_id,
							     &list->runs[list->count]) == 0)
				list->count++;
		}
	}
	return 0;
}
