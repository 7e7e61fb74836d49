/*
 * The vlak-icount plugin's live file, read by the program under measurement.
 *
 * With live=FILE (scripts/rvv-run sets VLAK_ICOUNT_LIVE to it), the plugin rewrites FILE at every
 * end marker (icount_marker.h), before the guest runs its next instruction:
 *
 *   vlak-icount-live last=<N> region=<N> regions=<K> [cycles=<C> model=<M> uncosted=<U> unknown_vtype=<W>]
 *
 * last: instructions of the region just closed; region: their sum over all regions; regions: how
 * many have closed. The bracketed part is written when the plugin weights by a cost table
 * (costs=FILE): the region's cycles on model M, and how many of its instructions had no cost or ran
 * under a vtype the plugin could not follow. The plugin (icount.c) writes the line, and this is its
 * one reader: the lab, the hackathon harness and the budget tests all call it.
 *
 * It is a plain function of a file, and costs nothing inside a measured region when called outside.
 */
#ifndef VLAK_ICOUNT_LIVE_H
#define VLAK_ICOUNT_LIVE_H

#include <stdio.h>
#include <stdlib.h>

struct vlak_icount_live {
    unsigned long long last, region, regions;
    double cycles;  /* < 0: the line has no weighted part */
    char model[64]; /* "" without a weighted part */
    unsigned long long uncosted, unknown_vtype;
};

/* 1 when $VLAK_ICOUNT_LIVE names a readable live file holding at least the counts; 0 otherwise.
 * Every field is set either way. */
static inline int vlak_icount_read_live(struct vlak_icount_live *live)
{
    live->last = live->region = live->regions = live->uncosted = live->unknown_vtype = 0;
    live->cycles = -1;
    live->model[0] = '\0';
    const char *path = getenv("VLAK_ICOUNT_LIVE");
    if (path == NULL) {
        return 0;
    }
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return 0;
    }
    const int ok = fscanf(f, "vlak-icount-live last=%llu region=%llu regions=%llu", &live->last, &live->region,
                          &live->regions) == 3;
    if (ok && fscanf(f, " cycles=%lf model=%63s uncosted=%llu unknown_vtype=%llu", &live->cycles, live->model,
                     &live->uncosted, &live->unknown_vtype) != 4) {
        live->cycles = -1;
        live->model[0] = '\0';
        live->uncosted = live->unknown_vtype = 0;
    }
    fclose(f);
    return ok;
}

#endif /* VLAK_ICOUNT_LIVE_H */
