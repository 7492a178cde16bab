-- Credentials are stored as SHA-256 (hex) of their value from now on (oauth/adapter.ts): rows
-- written before keep working once their ids are hashed the same way and the payload's copy of
-- the value (jti, userCode) is dropped. Clients and grants keep their ids.
update oauth_store
set id = encode(sha256(convert_to(id, 'UTF8')), 'hex'),
    user_code = case when user_code is null then null else encode(sha256(convert_to(user_code, 'UTF8')), 'hex') end,
    payload = payload - 'jti' - 'userCode'
where kind in ('AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest',
  'ClientCredentials', 'InitialAccessToken', 'RegistrationAccessToken', 'PushedAuthorizationRequest', 'Session',
  'Interaction');
