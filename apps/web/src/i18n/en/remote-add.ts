/** The public /remote-add page: the command that enrols an agent with a registration token. */
export const remoteAdd = {
  title: 'Enrol a client',
  intro:
    'Run this command on the host to enrol its agent with this server. The token stays in this browser: this page never sends it to the server.',
  fields: {
    token: 'Registration token',
    type: 'Client type',
    name: 'Client name',
  },
  placeholders: {
    token: 'Paste the registration token (ksprt_…)',
    name: 'The host name by default',
  },
  types: { tde: 'TDE (transparent encryption)', rdm: 'RDM (anti-ransomware)', kadp: 'KADP (application)' },
  rules: {
    token: 'A registration token has letters, digits and "_" or "-" only (as shown when it was created).',
    name: 'A client name has 1 to 64 letters, digits, ".", "_" or "-".',
  },
  linux: 'Linux',
  windows: 'Windows (PowerShell)',
  needToken: 'Enter the registration token to see the command.',
  fingerprint: 'Server CA fingerprint (SHA-256)',
  fingerprintHelp: 'Check that the agent reports this fingerprint for the server before trusting it.',
  noTls:
    'This server does not use TLS (it listens on a local address only): there is no CA fingerprint to check.',
  toLogin: 'Sign in',
};
