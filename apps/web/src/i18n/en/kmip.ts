/** Keys › KMIP clients: the KMIP listener of this node and the clients that speak KMIP to it (docs/kmip.md). */
export const kmip = {
  listener: {
    title: 'KMIP listener',
    state: 'State',
    listening: 'Listening',
    notListening: 'Not listening',
    port: 'Port',
    versions: 'Versions',
    maxMessage: 'Largest message',
    idle: 'Idle connections closed after',
    perClient: 'Connections per client',
    total: 'Connections in all',
    seconds: '{{count}} s',
    mib: '{{value}} MiB',
    kib: '{{value}} KiB',
    bytes: '{{value}} bytes',
    off: 'The KMIP listener is off on this node. It starts when KSP_KMIP_PORT is set and a TLS certificate is given (KSP_KMIP_CERT and KSP_KMIP_KEY, or KSP_TLS_CERT and KSP_TLS_KEY).',
    certificateHint:
      "KMIP clients verify the listener with its certificate's issuer (for a self-signed certificate, the certificate itself).",
    certificate: 'Server certificate',
    noCertificate: 'None while the listener is off',
  },
  fields: {
    name: 'Name',
    role: 'Role',
    state: 'State',
    serial: 'Certificate serial',
    expiry: 'Certificate expires',
    lastSeen: 'Last seen',
    registered: 'Registered',
    validityDays: 'Certificate validity (days)',
    csr: 'Certificate request (CSR)',
    newCsr: 'New certificate request (CSR, optional)',
  },
  states: {
    active: 'Active',
    disabled: 'Disabled',
    revoked: 'Revoked',
  },
  noRole: 'None',
  download: 'Download',
  never: 'Never',
  expired: 'Expired',
  actions: {
    changeRole: 'Change role',
    disable: 'Disable',
    enable: 'Enable',
    renew: 'Renew',
  },
  create: {
    title: 'Add a KMIP client',
    ok: 'Create and issue',
    keyNote:
      'The private key never reaches KSP: make the key and its CSR on the client, for example with openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout client.key -out client.csr -subj /CN=my-app, then paste or choose the CSR here.',
    nameHint: 'Letters, digits, space and _ . @ -, starting with a letter or a digit',
    roleHint: "The role's permissions decide every KMIP operation, as for the REST call that does the same",
    validityHint: '{{min}} to {{max}} days',
    csrHint: 'PEM (-----BEGIN CERTIFICATE REQUEST-----): paste it or choose a .csr or .pem file',
    roleRequired: 'Please choose a role',
  },
  role: {
    title: 'Change the role of {{name}}',
    hint: 'Open connections of the client follow the new role within a second.',
  },
  disable: {
    title: 'Disable KMIP client {{name}}?',
    content:
      'Its next KMIP request is refused, on open connections too, until it is enabled again. Its certificate stays valid.',
    done: 'KMIP client {{name}} disabled',
  },
  enable: {
    done: 'KMIP client {{name}} enabled',
  },
  renew: {
    title: 'Renew the certificate of {{name}}',
    ok: 'Renew',
    hint: 'A new certificate is issued with the same validity and the current one is revoked. Leave the CSR empty to certify the same key again, or give a CSR for a new key made on the client: the private key never reaches KSP.',
  },
  delete: {
    title: 'Delete KMIP client {{name}}?',
    content:
      'Its certificate is revoked and it can no longer connect. The keys it made stay. This cannot be undone.',
  },
  issued: {
    createdTitle: 'KMIP client {{name}} created',
    renewedTitle: 'New certificate of {{name}}',
    note: 'Install the certificate on the client with the private key that made the CSR (KSP never had that key); the client presents the certificate followed by the CA chain.',
    certificate: 'Client certificate',
    chain: 'CA chain',
    downloadBoth: 'Download certificate and chain',
    done: 'Done',
  },
};
