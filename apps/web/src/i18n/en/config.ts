export const config = {
  columns: {
    key: 'Key',
    value: 'Value',
    public: 'Public',
    description: 'Description',
    updatedAt: 'Updated',
  },
  builtIn: 'Built-in',
  readOnly: 'Read-only',
  addTitle: 'Add a configuration entry',
  editTitle: 'Edit {{key}}',
  keyRule: 'Start with a letter; then letters, digits, "_", "." or "-"',
  fields: {
    key: 'Key',
    value: 'Value',
    public: 'Public (readable before login)',
    description: 'Description',
    mfa: 'Require a Ukey at login (MFA)',
  },
  logo: {
    upload: 'Upload logo',
    badType: 'The logo must be a PNG, JPEG, WebP or SVG image',
    tooLarge: 'The logo must be at most {{max}} KB',
    hint: 'PNG, JPEG, WebP or SVG, at most {{max}} KB',
    uploaded: 'Logo uploaded',
    none: 'No logo',
  },
};
