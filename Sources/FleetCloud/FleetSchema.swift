import Logging
import PostgresNIO

/// The fleet cloud's schema in PostgreSQL, as numbered migrations. Every rule of the API that two
/// nodes could race on is a constraint here, so that no node ever checks and then writes:
/// one owner per device fleet-wide (`binding`'s primary key is the device), one registration per
/// IMEI fleet-wide (`device`'s primary key), pairing tokens used once (the conditional update in
/// ``FleetStore`` plus the `used_at`/`used_by` check), an idempotency key answered once
/// (`idempotency`'s primary key, written in the transaction of its effect).
enum FleetSchema {
    /// The version this build serves. A node refuses to serve a database at another version:
    /// older needs `nbgw-cloud migrate`, newer needs a newer node.
    static let version = 3

    static let migrations: [(version: Int, sql: String)] = [(1, v1), (2, v2), (3, v3)]

    /// Device management (docs/fleet.md, "Device management"): operators' credentials beside
    /// gateways', frozen devices, the events of transfers, freezes and deletes, and the devices of
    /// a home by index.
    static let v3 = """
        ALTER TABLE gateway ADD COLUMN role text NOT NULL DEFAULT 'gateway' CHECK (role IN ('gateway', 'operator'));
        ALTER TABLE device ADD COLUMN frozen_at bigint;
        ALTER TABLE device ADD COLUMN frozen_reason text CHECK (char_length(frozen_reason) BETWEEN 1 AND 256);
        ALTER TABLE device ADD CONSTRAINT device_frozen_check CHECK ((frozen_at IS NULL) = (frozen_reason IS NULL));
        ALTER TABLE event DROP CONSTRAINT event_kind_check;
        ALTER TABLE event ADD CONSTRAINT event_kind_check CHECK (kind IN ('registered', 'updated', 'bound', 'unbound',
            'conflict', 'transferred', 'frozen', 'unfrozen', 'deleted'));
        CREATE INDEX binding_by_home ON binding (tenant_id, home, device_id);
        """

    /// The event stream's order (docs/fleet.md, "Events"): an event's position is its writing
    /// transaction's id, then its own. Why not the id alone: ids are taken at insert and
    /// transactions commit in another order, so a consumer reading `id > cursor` skips an event
    /// committed after a later one was read. Events of transactions older than the oldest still
    /// running (`pg_snapshot_xmin`) can no longer appear, so the stream serves only those, in
    /// (tx, id) order: no gap, ever, whatever the commit order.
    static let v2 = """
        ALTER TABLE event ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id();
        CREATE INDEX event_stream ON event (tenant_id, tx, id);
        """

    /// Timestamps are bigint milliseconds since the epoch from the nodes' clocks (NTP-synchronised;
    /// the emulator and the API speak milliseconds), `*_at`.
    static let v1 = """
        CREATE TABLE tenant (
            id text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
            -- When true, only IMEIs in tenant_imei may register (deny by default).
            imei_allow_list boolean NOT NULL DEFAULT false,
            created_at bigint NOT NULL
        );

        CREATE TABLE tenant_imei (
            tenant_id text NOT NULL REFERENCES tenant(id) ON DELETE CASCADE,
            imei text NOT NULL CHECK (imei ~ '^[0-9]{15}$'),
            PRIMARY KEY (tenant_id, imei)
        );

        CREATE TABLE gateway (
            tenant_id text NOT NULL REFERENCES tenant(id),
            name text NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$'),
            client_id text NOT NULL UNIQUE CHECK (client_id ~ '^[a-z0-9]{20}$'),
            created_at bigint NOT NULL,
            PRIMARY KEY (tenant_id, name)
        );

        -- Two live secrets per gateway at most, for rotation without downtime. Sealed with
        -- AES-GCM under the nodes' key file: HMAC needs the secret itself, so it cannot be hashed,
        -- and a database dump alone does not give the secrets away.
        CREATE TABLE credential (
            client_id text NOT NULL REFERENCES gateway(client_id) ON DELETE CASCADE,
            slot smallint NOT NULL CHECK (slot IN (1, 2)),
            sealed_secret bytea NOT NULL,
            created_at bigint NOT NULL,
            PRIMARY KEY (client_id, slot)
        );

        CREATE TABLE access_token (
            access_token text PRIMARY KEY CHECK (length(access_token) = 32),
            refresh_token text NOT NULL UNIQUE CHECK (length(refresh_token) = 32),
            client_id text NOT NULL REFERENCES gateway(client_id) ON DELETE CASCADE,
            uid text NOT NULL,
            issued_at bigint NOT NULL,
            expires_at bigint NOT NULL CHECK (expires_at > issued_at),
            -- Replaced by a refresh: the pair is dead, the refresh token spent.
            revoked boolean NOT NULL DEFAULT false
        );
        CREATE INDEX access_token_expiry ON access_token (expires_at);

        -- One registration per IMEI across the whole fleet, whichever tenant.
        CREATE TABLE device (
            imei text PRIMARY KEY CHECK (imei ~ '^[0-9]{15}$'),
            tenant_id text NOT NULL REFERENCES tenant(id),
            device_id text NOT NULL UNIQUE
                CHECK (device_id ~ '^[A-Za-z0-9_.-]{1,64}$'),
            label_code text NOT NULL UNIQUE CHECK (label_code ~ '^[A-Za-z0-9]{4,64}$'),
            imsi text CHECK (imsi ~ '^[0-9]{6,15}$'),
            -- As DeviceIdentity's ICCID takes it: 18 to 22 characters, digits then any F padding.
            iccid text CHECK (char_length(iccid) BETWEEN 18 AND 22 AND iccid ~ '^[0-9]+[Ff]*$'),
            manufacturer text CHECK (char_length(manufacturer) BETWEEN 1 AND 64),
            model text CHECK (char_length(model) BETWEEN 1 AND 64),
            firmware text CHECK (char_length(firmware) BETWEEN 1 AND 128),
            product_id text CHECK (char_length(product_id) BETWEEN 1 AND 64),
            registered_by text NOT NULL,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL
        );
        CREATE INDEX device_by_tenant ON device (tenant_id, device_id);

        CREATE TABLE home (
            tenant_id text NOT NULL REFERENCES tenant(id),
            name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
            owner_uid text NOT NULL CHECK (char_length(owner_uid) BETWEEN 1 AND 64),
            created_at bigint NOT NULL,
            PRIMARY KEY (tenant_id, name)
        );

        CREATE TABLE pairing_token (
            token text PRIMARY KEY CHECK (length(token) = 20),
            tenant_id text NOT NULL,
            home text NOT NULL,
            uid text NOT NULL,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL CHECK (expires_at > created_at),
            used_at bigint,
            used_by text,
            CHECK ((used_at IS NULL) = (used_by IS NULL)),
            FOREIGN KEY (tenant_id, home) REFERENCES home (tenant_id, name)
        );

        -- Strong binding, fleet-wide: the device is the primary key. The gateway that bound it is
        -- kept to name it in another gateway's conflict.
        CREATE TABLE binding (
            device_id text PRIMARY KEY REFERENCES device(device_id),
            tenant_id text NOT NULL,
            uid text NOT NULL,
            home text NOT NULL,
            token text REFERENCES pairing_token(token),
            gateway text NOT NULL,
            bound_at bigint NOT NULL,
            FOREIGN KEY (tenant_id, home) REFERENCES home (tenant_id, name)
        );
        CREATE INDEX binding_by_tenant ON binding (tenant_id, device_id);

        CREATE TABLE pairing_outcome (
            token text NOT NULL REFERENCES pairing_token(token),
            device_id text NOT NULL,
            success boolean NOT NULL,
            error_code text,
            error_msg text,
            at bigint NOT NULL,
            PRIMARY KEY (token, device_id),
            CHECK (success = (error_code IS NULL))
        );

        -- An idempotency key's first answer, written in the transaction of its effect. A row with
        -- no response yet is a claim held by a transaction in flight: a second request under the
        -- same key waits on the primary key until that transaction ends.
        CREATE TABLE idempotency (
            client_id text NOT NULL,
            key text NOT NULL CHECK (length(key) BETWEEN 16 AND 64),
            request_hash text NOT NULL CHECK (length(request_hash) = 64),
            response text,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            PRIMARY KEY (client_id, key)
        );
        CREATE INDEX idempotency_expiry ON idempotency (expires_at);

        -- What happened, in order, per tenant: the event stream and the audit log in one.
        CREATE TABLE event (
            id bigserial PRIMARY KEY,
            tenant_id text NOT NULL,
            at bigint NOT NULL,
            kind text NOT NULL CHECK (kind IN ('registered', 'updated', 'bound', 'unbound', 'conflict')),
            device_id text NOT NULL,
            gateway text NOT NULL,
            idempotency_key text,
            detail text
        );
        CREATE INDEX event_by_tenant ON event (tenant_id, id);
        CREATE INDEX event_by_device ON event (device_id, id);
        """
}
