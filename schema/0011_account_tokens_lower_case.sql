-- An appAccountToken is a UUID and compares without regard to case (reference §8.1): Apple
-- writes it in lower case, Swift's UUID().uuidString in upper case. From this version on every
-- token is stored in its canonical lower-case form; tokens indexed before are folded into it,
-- so a customer split in two by case becomes one account again.

INSERT INTO storeledger.account_streams (app_account_token, stream_id, first_seen_at)
SELECT lower(app_account_token), stream_id, first_seen_at
FROM storeledger.account_streams
WHERE app_account_token <> lower(app_account_token)
ON CONFLICT (app_account_token, stream_id) DO NOTHING;

DELETE FROM storeledger.account_streams WHERE app_account_token <> lower(app_account_token);

-- The merged account's stored view no longer covers all its streams: it is projected anew.
INSERT INTO storeledger.account_views AS v (app_account_token, changes)
SELECT DISTINCT lower(app_account_token), 1
FROM storeledger.account_views
WHERE app_account_token <> lower(app_account_token)
ON CONFLICT (app_account_token) DO UPDATE SET changes = v.changes + 1;

DELETE FROM storeledger.account_views WHERE app_account_token <> lower(app_account_token);
