import { api, type DataOf, type QueryOf } from '@ksp/contracts';
import { call } from './client';
import { download } from './download';

export type LogRow = DataOf<typeof api.log.list>['data'][number];
export type LogListQuery = QueryOf<typeof api.log.list>;
export type LogExportQuery = QueryOf<typeof api.log.export>;

export const logKeys = {
  all: ['log'] as const,
};

export const listLogs = (query: LogListQuery) => call(api.log.list, { query });
/** The records the filters select, as the file the server streams (CSV or JSON). */
export const exportLogs = (query: LogExportQuery) => download(api.log.export, query);

export type ClientLogRow = DataOf<typeof api.clientLog.list>['data'][number];
export type ClientLogListQuery = QueryOf<typeof api.clientLog.list>;
export type ClientLogExportQuery = QueryOf<typeof api.clientLog.export>;

export const clientLogKeys = {
  all: ['log', 'client'] as const,
};

export const listClientLogs = (query: ClientLogListQuery) => call(api.clientLog.list, { query });
/** The client records the filters select, as the file the server streams (CSV or JSON). */
export const exportClientLogs = (query: ClientLogExportQuery) => download(api.clientLog.export, query);
