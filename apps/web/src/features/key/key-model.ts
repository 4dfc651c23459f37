/**
 * The key pages' rules, kept out of the components: which algorithms and usages may go
 * together, what import content must look like, which action a key's state allows, the
 * bodies sent to the server, the list's query and the pages' paths. The pages import them
 * from here.
 */
export * from './key-algorithms';
export * from './key-content';
export * from './key-form';
export * from './key-states';
export * from './key-list-query';
export * from './key-paths';
