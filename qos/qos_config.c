/* SPDX-License-Identifier: BSD-3-Clause */
/* Config section "qos" (qos_config.h): placeholder until the loader lands. */
#include "qos/qos_config.h"
