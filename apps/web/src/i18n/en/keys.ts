/** Keys (main console and the KMS sub-console). */
export const keys = {
  placeholder: 'Being built',
};
