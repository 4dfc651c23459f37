/** Access management: users, roles, registration tokens, LDAP, domains, password policy, UKEY. */
export const access = {
  placeholder: 'Being built',
};
