-- pgbench's half of tools/bench-cloud.sh: the SQL one signed bind costs nbgw-cloud, issued
-- directly with prepared statements. One bind over HTTP is two requests (a pairing token, then the
-- bind) and two transactions; the statements below are those of FleetStore (createPairingToken,
-- bind, the idempotency claim and answer, the event), in the same order, with the same round
-- trips: 8 per bind (19 before the bind's reads, its writes, the home's upsert and each answer
-- were folded into single statements; 12 before a node kept the access tokens it checked for 5 s,
-- FleetTokenCache: the node looks a gateway's token up once per 5 s, not per request; 10 before
-- each request's idempotency claim moved into its first statement). A bind that finds the device taken skips the token's use,
-- the outcome and the event, as FleetStore's does (the same CTE: each part runs only when the one
-- before it wrote its row).
\set d random(1, :devices)
\set r random(1000000000000, 9999999999999)
BEGIN;
WITH claim AS (
    INSERT INTO idempotency (client_id, key, request_hash, created_at, expires_at)
    SELECT :client, 'floor-t-' || :r, repeat('a', 64), 0, 86400000
    ON CONFLICT (client_id, key) DO NOTHING RETURNING 1),
created AS (
    INSERT INTO home (tenant_id, name, owner_uid, created_at)
    SELECT 'bench', 'f' || :client_id, 'v' || :client_id, 0 WHERE EXISTS (SELECT 1 FROM claim)
    ON CONFLICT (tenant_id, name) DO NOTHING RETURNING owner_uid)
SELECT EXISTS (SELECT 1 FROM claim),
    (SELECT owner_uid FROM created UNION ALL
     SELECT owner_uid FROM home WHERE tenant_id = 'bench' AND name = 'f' || :client_id LIMIT 1);
WITH answer AS (
    UPDATE idempotency SET response = '{"token":"floorpg' || :r || '"}' WHERE client_id = :client AND key = 'floor-t-' || :r)
INSERT INTO pairing_token (token, tenant_id, home, uid, created_at, expires_at)
    VALUES ('floorpg' || :r, 'bench', 'f' || :client_id, 'v' || :client_id, 0, 9000000000000) RETURNING 1;
COMMIT;
BEGIN;
WITH claim AS (
    INSERT INTO idempotency (client_id, key, request_hash, created_at, expires_at)
    SELECT :client, 'floor-b-' || :r, repeat('a', 64), 0, 86400000
    ON CONFLICT (client_id, key) DO NOTHING RETURNING 1)
SELECT EXISTS (SELECT 1 FROM claim),
    t.home, t.uid, t.expires_at, t.used_at IS NOT NULL, d.tenant_id, d.frozen_reason
    FROM (VALUES (1)) AS one (x)
    LEFT JOIN pairing_token t ON t.token = 'floorpg' || :r AND t.tenant_id = 'bench'
    LEFT JOIN device d ON d.device_id = 'bd' || lpad(:d::text, 7, '0');
WITH bound AS (
    INSERT INTO binding (device_id, tenant_id, uid, home, token, gateway, bound_at)
    VALUES ('bd' || lpad(:d::text, 7, '0'), 'bench', 'v' || :client_id, 'f' || :client_id, 'floorpg' || :r, 'floor', 1)
    ON CONFLICT (device_id) DO NOTHING RETURNING bound_at),
used AS (
    UPDATE pairing_token SET used_at = 1, used_by = 'bd' || lpad(:d::text, 7, '0')
    WHERE token = 'floorpg' || :r AND used_at IS NULL AND expires_at >= 1 AND EXISTS (SELECT 1 FROM bound)
    RETURNING 1),
outcome AS (
    INSERT INTO pairing_outcome (token, device_id, success, error_code, error_msg, at)
    SELECT 'floorpg' || :r, 'bd' || lpad(:d::text, 7, '0'), true, NULL, NULL, 1 WHERE EXISTS (SELECT 1 FROM used)
    ON CONFLICT (token, device_id) DO UPDATE SET success = true, error_code = NULL, error_msg = NULL, at = EXCLUDED.at),
event AS (
    INSERT INTO event (tenant_id, at, kind, device_id, gateway, idempotency_key, detail)
    SELECT 'bench', 1, 'bound', 'bd' || lpad(:d::text, 7, '0'), 'floor', 'floor-b-' || :r, 'v' || :client_id
    WHERE EXISTS (SELECT 1 FROM used)),
answer AS (
    UPDATE idempotency SET response = '{"status":"bound"}'
    WHERE client_id = :client AND key = 'floor-b-' || :r AND EXISTS (SELECT 1 FROM used))
SELECT (SELECT bound_at FROM bound), EXISTS (SELECT 1 FROM used);
COMMIT;
