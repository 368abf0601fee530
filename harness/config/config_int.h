/* config_int.h: what config.c (the node tree, typing, accessors) shares with
 * config_parse.c (YAML to tree). Private to the config module, not for other files.
 */
#ifndef DPERM_CONFIG_INT_H
#define DPERM_CONFIG_INT_H

#include "harness/config/config.h"

/* Deepest nesting of maps and sequences the parser accepts. cfg_clone, cfg_free and
 * cfg_to_json recurse over the tree, so this also bounds their stack. */
#define CFG_MAX_DEPTH 64

/* A zeroed node of the given kind at FILE:LINE:COL (file is not copied: it points into
 * the cfg_doc). NULL on ENOMEM. */
cfg_node *cfg_node_new(cfg_kind kind, const char *file, int line, int col);

#endif
