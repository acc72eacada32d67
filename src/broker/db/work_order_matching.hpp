#pragma once
// Which work orders an agent may claim now, as SQL conditions on the
// work_orders table: the claim, the pending list and the fleet's counts
// read them alike.

// A work order an agent may claim at `now` (a parameter): pending, or backing
// off no longer, or held by a claim past its timeout.
#define SINDRI_CLAIMABLE_AT(now)                                                                \
  "(work_orders.status = 'PENDING' OR (work_orders.status = 'RETRY_PENDING' AND "               \
  "work_orders.next_retry_after <= " now ") OR (work_orders.status = 'CLAIMED' AND "            \
  "work_orders.claim_expires_at < " now "))"

// The work order targets `agent` (a parameter): by name, or a shared label, or
// a shared annotation.
#define SINDRI_WORK_ORDER_TARGETS(agent)                                                                       \
  "(EXISTS (SELECT 1 FROM work_order_targets t WHERE t.work_order_id = work_orders.id AND t.agent_id = " agent \
  ") OR EXISTS (SELECT 1 FROM work_order_labels l JOIN agent_labels al ON al.label = l.label "                 \
  "WHERE l.work_order_id = work_orders.id AND al.agent_id = " agent                                            \
  ") OR EXISTS (SELECT 1 FROM work_order_annotations n JOIN agent_annotations aa ON aa.key = n.key "           \
  "AND aa.value = n.value WHERE n.work_order_id = work_orders.id AND aa.agent_id = " agent "))"
