export { ClientStatusTag } from '../../components/client-status';

/** The detail page of a client, under its list (docs/modules.md#console-routes). */
export const clientDetailPath = (id: string) => `/kadp/clients/clients-details/${id}`;
