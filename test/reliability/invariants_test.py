#!/usr/bin/env python3
"""The invariant checker catches what it promises to catch, on hand-made write records."""
import sys
import unittest

import invariants

LEASE = ("default", "replica-guard")
GUARD = {invariants.ENABLED: "true", invariants.DESIRED: "3", invariants.MAX_SURGE: "2"}


def lease_write(sequence, time, holder, duration=2):
    return {"sequence": sequence, "time": time, "verb": "update", "group": "coordination.k8s.io",
            "resource": "leases", "namespace": "default", "name": "replica-guard", "code": 200,
            "fieldManager": "replica-guard", "userAgent": f"replica-guard/1 ({holder or 'x'})",
            "holderIdentity": holder, "leaseDurationSeconds": duration}


def scale(sequence, time, who, replicas, annotations=GUARD, code=200):
    return {"sequence": sequence, "time": time, "verb": "patch", "group": "apps",
            "resource": "deployments", "subresource": "scale", "namespace": "default", "name": "web",
            "code": code, "fieldManager": "replica-guard", "userAgent": f"replica-guard/1 ({who})",
            "replicas": replicas, "annotations": dict(annotations)}


class InvariantsTest(unittest.TestCase):
    def test_writes_within_bounds_by_the_holder_pass(self):
        report = invariants.check([lease_write(1, 10.0, "a"), scale(2, 10.5, "a", 5),
                                   scale(3, 11.0, "a", 3)], lease=LEASE)
        self.assertEqual(report.violations, [])
        self.assertEqual(report.deployment_writes, 2)

    def test_a_write_outside_desired_plus_twice_the_surge_is_caught(self):
        report = invariants.check([scale(1, 1.0, "a", 8), scale(2, 2.0, "a", 2)], lease=None)
        self.assertEqual(len(report.violations), 2)
        self.assertIn("outside [3, 7]", report.violations[0])

    def test_writes_above_the_serving_surge_are_counted(self):
        report = invariants.check([scale(1, 1.0, "a", 5), scale(2, 2.0, "a", 6)], lease=None)
        self.assertEqual(report.violations, [])
        self.assertEqual(report.beyond_serving_surge, 1)

    def test_a_percentage_surge_rounds_up(self):
        surge = dict(GUARD, **{invariants.MAX_SURGE: "25%"})  # 25% of 3 -> 1
        report = invariants.check([scale(1, 1.0, "a", 5, surge), scale(2, 2.0, "a", 6, surge)], lease=None)
        self.assertEqual(len(report.violations), 1)

    def test_writing_an_unguarded_deployment_is_caught_but_the_opt_out_clean_up_is_not(self):
        unguarded = {"other": "x"}
        report = invariants.check([scale(1, 1.0, "a", 3, {}), scale(2, 2.0, "a", 3, {}),
                                   scale(3, 3.0, "a", 4, unguarded)], lease=None)
        self.assertEqual(len(report.violations), 2)  # the first (no earlier count) and the scale
        self.assertIn("not guarded", report.violations[-1])

    def test_a_write_by_a_replica_not_holding_the_lease_is_caught(self):
        report = invariants.check([lease_write(1, 10.0, "a"), lease_write(2, 13.0, "b"),
                                   scale(3, 13.1, "a", 4)], lease=LEASE)
        self.assertEqual(len(report.violations), 1)
        self.assertIn("held by 'b'", report.violations[0])

    def test_a_write_after_the_lease_ran_out_is_caught_even_if_rejected(self):
        report = invariants.check([lease_write(1, 10.0, "a"), scale(2, 12.5, "a", 4, code=409)],
                                  lease=LEASE)
        self.assertEqual(len(report.violations), 1)
        self.assertIn("had run out", report.violations[0])

    def test_a_rejected_lease_create_is_the_election_s_own(self):
        create = dict(lease_write(2, 10.1, "b"), verb="create", name="", code=409)
        del create["holderIdentity"]
        report = invariants.check([lease_write(1, 10.0, "a"), create, scale(3, 10.2, "a", 4)], lease=LEASE)
        self.assertEqual(report.violations, [])

    def test_a_write_held_by_the_server_past_a_takeover_is_counted_not_blamed(self):
        held = dict(scale(3, 14.0, "a", 4), received=10.5)  # arrived while "a" led
        report = invariants.check([lease_write(1, 10.0, "a"), lease_write(2, 13.0, "b"), held], lease=LEASE)
        self.assertEqual(report.violations, [])
        self.assertEqual((report.landed_after_lease, report.landed_after_takeover), (1, 1))

    def test_a_released_lease_holds_no_one(self):
        report = invariants.check([lease_write(1, 10.0, "a"), lease_write(2, 11.0, ""),
                                   scale(3, 11.1, "a", 4)], lease=LEASE)
        self.assertEqual(len(report.violations), 1)

    def test_identity_is_the_last_parenthesised_part_of_the_user_agent(self):
        self.assertEqual(invariants.identity("replica-guard/0.4.0 (host_12)"), "host_12")
        self.assertEqual(invariants.identity("kubectl/v1.35.0 (linux/amd64) kubernetes/abc"), "")


if __name__ == "__main__":
    sys.exit(unittest.main())
