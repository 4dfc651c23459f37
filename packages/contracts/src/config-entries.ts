// Plain constants of the configuration area, apart from its calls: the console's catalogues
// read them before the login form, without loading the calls' zod schemas.

/** Entries every install has. `version` is the server's and cannot be edited. */
export const builtInConfig = {
  version: { public: true, readOnly: true, description: 'Product version' },
  title: { public: true, readOnly: false, description: 'Product title shown in the top bar' },
  logo: { public: true, readOnly: false, description: 'Logo (data URL, set by upload)' },
  MFA: { public: true, readOnly: false, description: "'1' requires a Ukey second factor at login" },
  UKEY_BRIDGE: {
    public: true,
    readOnly: false,
    description: 'Address of the local UKEY bridge the console signs with',
  },
} as const;

export const LOGO_MAX_BYTES = 256 * 1024;
/** Where the console looks for the UKEY bridge unless the UKEY_BRIDGE entry says otherwise. */
export const DEFAULT_UKEY_BRIDGE = 'http://127.0.0.1:41414';
export const CONFIG_VALUE_MAX = 4096;
