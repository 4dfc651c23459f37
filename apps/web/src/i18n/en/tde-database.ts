/** TDE › Database clients: databases that read their data-at-rest keys from KSP's key endpoint (docs/tde-database.md). */
export const tdeDatabase = {
  endpoint: {
    title: 'Key endpoint',
    url: 'Plugin URL',
    mount: 'Mount',
    certificate: 'Server certificate',
    download: 'Download PEM',
    noCertificate: 'None: this node serves plain HTTP',
    noTls:
      'This node serves plain HTTP: databases would send their tokens and receive their keys in clear. Serve KSP over TLS (KSP_TLS_CERT and KSP_TLS_KEY) before a database reads keys from it.',
    hint: 'MariaDB: load the hashicorp_key_management plugin with hashicorp-key-management-vault-url set to the plugin URL, hashicorp-key-management-token set to the token of a client below, and the downloaded certificate as its CA file (hashicorp-key-management-vault-ca). docs/tde-database.md walks through it.',
  },
  fields: {
    name: 'Name',
    description: 'Description',
    state: 'State',
    token: 'Token',
    tokenIssued: 'Token made',
    keys: 'Keys',
    lastRead: 'Last read',
    lastReadIp: 'Last read from',
    ipWhitelist: 'IP whitelist',
    created: 'Created',
  },
  states: {
    enabled: 'Enabled',
    disabled: 'Disabled',
  },
  noToken: 'No token',
  never: 'Never',
  anyAddress: 'Any address',
  none: 'None',
  actions: {
    details: 'Details',
    disable: 'Disable',
    enable: 'Enable',
    regenerate: 'New token',
    revoke: 'Revoke token',
  },
  create: {
    title: 'Add a database client',
    ok: 'Create',
    nameHint: 'Letters, digits, space and _ . @ -, starting with a letter or a digit',
    descriptionHint: 'What the database is, where it runs',
  },
  edit: {
    title: 'Edit database client {{name}}',
  },
  disable: {
    title: 'Disable database client {{name}}?',
    content: 'Every key read by the database is refused until the client is enabled again.',
    done: 'Database client {{name}} disabled',
  },
  enable: {
    done: 'Database client {{name}} enabled',
  },
  regenerate: {
    title: 'Make a new token for {{name}}?',
    content:
      'The current token stops working at once: the database cannot read its keys until it is given the new one.',
    ok: 'Make a new token',
  },
  revoke: {
    title: 'Revoke the token of {{name}}?',
    content: 'Every key read by the database is refused until a new token is made.',
    ok: 'Revoke',
    done: 'The token of {{name}} is revoked',
  },
  delete: {
    title: 'Delete database client {{name}}?',
    content:
      'Its token and grants go with it; the keys stay. A database still using it can no longer read its keys. This cannot be undone.',
  },
  token: {
    createdTitle: 'Database client {{name}} created',
    regeneratedTitle: 'New token of {{name}}',
    once: 'Copy the token now: KSP keeps only a hash of it and will not show it again.',
    use: 'The database sends it as the X-Vault-Token header: for MariaDB, set hashicorp-key-management-token to it.',
    done: 'I have saved it',
  },
  detail: {
    title: 'Database client {{name}}',
    grants: 'Keys granted',
    noGrants: 'No key granted yet: the database can read nothing.',
  },
  grant: {
    dbKeyId: 'Key id',
    dbKeyIdHint: "The ENCRYPTION_KEY_ID the database asks for; 1 is MariaDB's default key",
    dbKeyIdRule: 'The key id must be a whole number from {{min}} to {{max}}',
    key: 'KSP key',
    keyHint: 'An AES-256 key of this domain in use',
    keyRequired: 'Choose a key',
    keyIdLabel: 'KSP key id',
    ok: 'Grant',
    done: 'Key id {{id}} granted',
    keyName: 'KSP key',
    keyDeleted: 'Deleted',
    keyState: 'Key state',
    currentVersion: 'Current version',
    reads: 'Reads',
    lastVersion: 'Last version read',
    remove: 'Remove',
  },
  ungrant: {
    title: 'Remove key id {{id}} from {{name}}?',
    content:
      "The database's next read of key id {{id}} is refused: what it encrypted under that id cannot be read until the id is granted again. The KSP key stays.",
    done: 'Key id {{id}} removed',
  },
};
