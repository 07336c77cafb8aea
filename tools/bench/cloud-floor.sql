-- pgbench's half of tools/bench-cloud.sh: the SQL one signed bind costs nbgw-cloud, issued
-- directly with prepared statements. One bind over HTTP is two requests (a pairing token, then the
-- bind), each with its access-token check, and two transactions; the statements below are those
-- of FleetStore (createPairingToken, bind, the idempotency claim and answer, the event), in the
-- same order, with the same round trips. A bind that finds the device taken skips the token's use,
-- the outcome and the event, as FleetStore's does (here through EXISTS on the binding it made).
\set d random(1, :devices)
\set r random(1000000000000, 9999999999999)
SELECT expires_at, revoked FROM access_token WHERE access_token = :access AND client_id = :client;
BEGIN;
INSERT INTO idempotency (client_id, key, request_hash, created_at, expires_at)
    VALUES (:client, 'floor-t-' || :r, repeat('a', 64), 0, 86400000) ON CONFLICT (client_id, key) DO NOTHING RETURNING 1;
INSERT INTO home (tenant_id, name, owner_uid, created_at) VALUES ('bench', 'f' || :client_id, 'v' || :client_id, 0)
    ON CONFLICT (tenant_id, name) DO NOTHING;
SELECT owner_uid FROM home WHERE tenant_id = 'bench' AND name = 'f' || :client_id;
INSERT INTO pairing_token (token, tenant_id, home, uid, created_at, expires_at)
    VALUES ('floorpg' || :r, 'bench', 'f' || :client_id, 'v' || :client_id, 0, 9000000000000);
UPDATE idempotency SET response = '{"token":"floorpg' || :r || '"}' WHERE client_id = :client AND key = 'floor-t-' || :r;
COMMIT;
SELECT expires_at, revoked FROM access_token WHERE access_token = :access AND client_id = :client;
BEGIN;
INSERT INTO idempotency (client_id, key, request_hash, created_at, expires_at)
    VALUES (:client, 'floor-b-' || :r, repeat('a', 64), 0, 86400000) ON CONFLICT (client_id, key) DO NOTHING RETURNING 1;
SELECT home, uid, expires_at, used_at IS NOT NULL FROM pairing_token WHERE token = 'floorpg' || :r AND tenant_id = 'bench';
SELECT tenant_id FROM device WHERE device_id = 'bd' || lpad(:d::text, 7, '0');
INSERT INTO binding (device_id, tenant_id, uid, home, token, gateway, bound_at)
    VALUES ('bd' || lpad(:d::text, 7, '0'), 'bench', 'v' || :client_id, 'f' || :client_id, 'floorpg' || :r, 'floor', 1)
    ON CONFLICT (device_id) DO NOTHING RETURNING bound_at;
UPDATE pairing_token SET used_at = 1, used_by = 'bd' || lpad(:d::text, 7, '0')
    WHERE token = 'floorpg' || :r AND used_at IS NULL AND expires_at >= 1
    AND EXISTS (SELECT 1 FROM binding WHERE device_id = 'bd' || lpad(:d::text, 7, '0') AND token = 'floorpg' || :r)
    RETURNING 1;
INSERT INTO pairing_outcome (token, device_id, success, error_code, error_msg, at)
    SELECT 'floorpg' || :r, 'bd' || lpad(:d::text, 7, '0'), true, NULL, NULL, 1
    WHERE EXISTS (SELECT 1 FROM binding WHERE device_id = 'bd' || lpad(:d::text, 7, '0') AND token = 'floorpg' || :r)
    ON CONFLICT (token, device_id) DO UPDATE SET success = true, error_code = NULL, error_msg = NULL, at = EXCLUDED.at;
INSERT INTO event (tenant_id, at, kind, device_id, gateway, idempotency_key, detail)
    SELECT 'bench', 1, 'bound', 'bd' || lpad(:d::text, 7, '0'), 'floor', 'floor-b-' || :r, 'v' || :client_id
    WHERE EXISTS (SELECT 1 FROM binding WHERE device_id = 'bd' || lpad(:d::text, 7, '0') AND token = 'floorpg' || :r);
UPDATE idempotency SET response = '{"status":"bound"}' WHERE client_id = :client AND key = 'floor-b-' || :r;
COMMIT;
