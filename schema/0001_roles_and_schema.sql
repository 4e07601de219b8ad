-- Roles and the storeledger schema.
--
-- storeledger_owner  owns every object; the only role that may run the (future) erasure
--                    procedure. NOLOGIN: operators SET ROLE to it deliberately.
-- storeledger_writer the engine's role: SELECT and INSERT on events, nothing more.
-- storeledger_reader dashboards, audits and replicas: SELECT only.
-- Roles are global to the cluster, so several databases may run this migration; a role that
-- already exists is kept as it is.

DO $$
BEGIN
  CREATE ROLE storeledger_owner NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END
$$;

DO $$
BEGIN
  CREATE ROLE storeledger_writer LOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END
$$;

DO $$
BEGIN
  CREATE ROLE storeledger_reader LOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END
$$;

CREATE SCHEMA storeledger AUTHORIZATION storeledger_owner;
GRANT USAGE ON SCHEMA storeledger TO storeledger_writer, storeledger_reader;
