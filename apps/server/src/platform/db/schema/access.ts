/** Domains, users, roles, sessions and how they sign in. */
export interface AccessTables {
  domain: DomainTable;
  app_user: UserTable;
  role: RoleTable;
  user_role: UserRoleTable;
  user_domain: UserDomainTable;
  session: SessionTable;
  registration_token: RegistrationTokenTable;
  ldap_connection: LdapConnectionTable;
  mfa_pending: MfaPendingTable;
  password_policy: PasswordPolicyTable;
}

export interface DomainTable {
  id: string;
  name: string;
  description: string;
  parent_id: string | null;
  /** The domain KEK wrapped by the root key (AES-256-GCM, the domain id as AAD), base64. */
  kek_wrapped: string;
  created_at: string;
}

export interface UserTable {
  id: string;
  username: string;
  email: string;
  phone: string;
  password_hash: string | null;
  directory: string | null;
  must_change_password: number;
  password_changed_at: string | null;
  last_login_at: string | null;
  login_count: number;
  last_failed_login_at: string | null;
  failed_login_count: number;
  locked_until: string | null;
  ip_whitelist: string;
  app_secret_hash: string | null;
  /** The role an application token carries (null: the user's own roles). */
  app_role_id: string | null;
  ukey_serial: string | null;
  ukey_cert: string | null;
  created_at: string;
  updated_at: string;
}

export interface RoleTable {
  id: string;
  name: string;
  description: string;
  type: 'built-in' | 'custom';
  permissions: string;
  /** The domain a custom role belongs to; null for built-in roles (seen in every domain). */
  domain_id: string | null;
  created_at: string;
}

export interface UserRoleTable {
  user_id: string;
  role_id: string;
}

export interface UserDomainTable {
  user_id: string;
  domain_id: string;
}

export interface SessionTable {
  id: string;
  token_hash: string;
  user_id: string;
  domain_id: string;
  login_at: string;
  last_seen_at: string;
  source_ip: string;
  /** 'console' (a console session), a sub-console ('kadp', 'sms'), or 'app' (app-login). */
  scope: string;
  /** A sub-console token's console session (migration 031): it ends with that session. */
  parent_id?: string | null;
}

export interface RegistrationTokenTable {
  id: string;
  domain_id: string;
  name: string;
  usage: string;
  secret_hash: string;
  /** '-' for forever, else ISO 8601. */
  expires_at: string;
  cert_validity_days: number;
  capacity: number;
  used: number;
  created_at: string;
  updated_at: string;
}

export interface LdapConnectionTable {
  id: string;
  name: string;
  url: string;
  bind_dn: string;
  /** Wrapped by the root domain's KEK (AES-256-GCM, the connection id as AAD). */
  bind_password_wrapped: string | null;
  user_base_dn: string;
  username_attribute: string;
  user_dn_attribute: string;
  unique_id_attribute: string;
  user_filter: string;
  group_base_dn: string;
  group_filter: string;
  group_id_attribute: string;
  group_member_attribute: string;
  ca_certificate: string;
  verify_certificate: number;
  group_roles: string;
  created_at: string;
  updated_at: string;
}

export interface MfaPendingTable {
  user_id: string;
  password_ok_at: string;
  challenge: string | null;
  challenge_expires_at: string | null;
  source_ip: string;
}

export interface PasswordPolicyTable {
  id: string;
  min_length: number;
  max_length: number;
  min_lowercase: number;
  min_uppercase: number;
  min_digits: number;
  min_special: number;
  lockout_disabled: number;
  max_failed_attempts: number;
  expiry_days: number;
  min_change_days: number;
  updated_at: string;
}
