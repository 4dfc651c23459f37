import { defineMessages } from './define.js';

/** Answers of the HTTP layer: success, unexpected failures, malformed requests. */
export const errorsMessages = defineMessages({
  en: {
    ok: 'Success',
    'error.internal': 'Unexpected server error (reference {errorId})',
    'error.notFoundRoute': 'No such API call: {method} {url}',
    'error.bodyTooLarge': 'Request body is too large',
    'error.rateLimited': 'Too many requests, retry later',
    'error.badJson': 'body: is not valid JSON',
    'error.unsupportedMedia': 'Unsupported content type',
    'error.storageUnavailable': 'Storage unavailable, retry in {seconds} seconds',
    'error.multipartInvalid': 'file: the multipart body is malformed ({rule})',
    'error.multipartRule.boundary': 'the Content-Type header has no boundary',
    'error.multipartRule.truncated': 'a part is truncated or the closing boundary is missing',
    'error.multipartRule.limits': 'too many parts or fields',
  },
  zh: {
    ok: '成功',
    'error.internal': '服务器内部错误（编号 {errorId}）',
    'error.notFoundRoute': '不存在的接口：{method} {url}',
    'error.bodyTooLarge': '请求体过大',
    'error.rateLimited': '请求过于频繁，请稍后再试',
    'error.badJson': '请求体：不是有效的 JSON',
    'error.unsupportedMedia': '不支持的内容类型',
    'error.storageUnavailable': '存储暂不可用，请 {seconds} 秒后重试',
    'error.multipartInvalid': 'file：multipart 请求体格式错误（{rule}）',
    'error.multipartRule.boundary': 'Content-Type 头缺少 boundary',
    'error.multipartRule.truncated': '某个部分被截断或缺少结束 boundary',
    'error.multipartRule.limits': '部分或字段过多',
  },
});
