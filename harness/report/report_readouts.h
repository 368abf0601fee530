/* report_readouts.h: tables and figures over read-outs (train.readout): one training run
 * read at several points becomes one row of data per read-out.
 */
#ifndef DPERM_REPORT_READOUTS_H
#define DPERM_REPORT_READOUTS_H

#include <stddef.h>

#include <jansson.h>

/* How a table or figure reads its records: NONE, the runs' ends; BY_EPOCH, a record per
 * read-out epoch of each run (it names a key "readout.*": as a string value or an object
 * key anywhere in it, rows, cols, x, by, where, select); BY_TARGET, a record per epsilon
 * read-out (it names readout.epsilon_target: the columns are the asked epsilons, two of
 * which may fall in one epoch). */
typedef enum { READOUTS_NONE = 0, READOUTS_BY_EPOCH = 1, READOUTS_BY_TARGET = 2 } readouts_mode;
readouts_mode report_readouts_mode(json_t *spec);

/* The records read out (mode BY_EPOCH or BY_TARGET): each record with readouts gives one
 * record per read-out epoch (BY_EPOCH: read-outs of one epoch are one measurement) or per
 * epsilon read-out (BY_TARGET: its epoch read-outs are left out), a copy
 * whose config gains readout.{epoch, iteration, epsilon, epsilon_target} and whose metrics
 * take the read-out's values (test_accuracy, test_loss, train_loss, epsilon_spent,
 * epsilon_NAME, epsilon_tight, ...; iterations and epochs too); a read-out the run did not
 * reach keeps no model metrics. A record without readouts is read at its end (readout.epoch
 * = train.epochs). Failed records are kept as they are. Returns a new array of n_out new
 * references (free with report_readouts_free), or NULL on out of memory. */
json_t **report_readouts_expand(json_t *const *recs, size_t n, readouts_mode mode,
                                size_t *n_out);

void report_readouts_free(json_t **recs, size_t n);

#endif
