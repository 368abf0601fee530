/* conv_blocks.h: a test hook shared by the model tests: cut every conv layer of a built
 * model to im2col blocks of 2 examples, so a chunk goes through several blocks per lane
 * and per weight-gradient pass, the path a layer too large to keep a whole chunk's
 * patches takes (model.c, DP_COLS_BUDGET), on a model small enough to test. */
#ifndef DPERM_TEST_CONV_BLOCKS_H
#define DPERM_TEST_CONV_BLOCKS_H

#include <check.h>

#include "algorithms/models/model.h"

/* A layer that keeps a chunk's patches lends each lane two examples' room of its kept
 * buffers and keeps nothing afterwards (needs max_batch >= 2 DP_MODEL_LANES). */
static inline void test_conv_small_blocks(dp_model *m)
{
    ck_assert_uint_ge(m->max_batch, 2 * DP_MODEL_LANES);
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        if (l->spec.kind != DP_LAYER_CONV) continue;
        size_t P = dp_conv_patches(&l->conv), K = dp_conv_k(&l->conv), OC = (size_t)l->conv.oc;
        for (size_t j = 0; j < DP_MODEL_LANES; j++) {
            if (l->conv_keep) {
                l->conv_ws[j].cols = l->conv_cols + j * 2 * P * K;
                l->conv_ws[j].d = l->conv_d + j * 2 * P * OC;
            }
            l->conv_ws[j].block = 2;
        }
        l->conv_all.block = 2;
        l->conv_keep = 0;
    }
}

#endif
