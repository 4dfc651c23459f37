export { ClientStatusTag } from '../../components/client-status';

/** The detail page of a client, under its list (console-spec §2). */
export const clientDetailPath = (id: string) => `/kadp/clients/clients-details/${id}`;
