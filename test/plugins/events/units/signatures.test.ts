import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { signPayload, verifySignature } from '../../../../plugins/events/actions/signature';
import { webhookHeaders } from '../../../../plugins/events/actions/webhook';
import type { WebhookAction } from '../../../../plugins/events/types';

describe('events: webhook signatures', () => {
  const body = JSON.stringify({ id: 'default:1:w:0', record: { name: 'Ünïcode' } });

  it('is sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">, as a receiver recomputes it', () => {
    const receiver = 'sha256=' + createHmac('sha256', 's3cret').update(`1700000000.${body}`).digest('hex');
    expect(signPayload('s3cret', 1700000000, body)).to.equal(receiver);
    expect(signPayload('s3cret', '1700000000', Buffer.from(body))).to.equal(receiver);
  });

  it('verifies: right secret and body within the tolerance only', () => {
    const sig = signPayload('s3cret', 1700000000, body);
    expect(verifySignature('s3cret', sig, '1700000000', body, { now: 1700000100 })).to.equal(true);
    expect(verifySignature('other', sig, '1700000000', body, { now: 1700000100 })).to.equal(false);
    expect(verifySignature('s3cret', sig, '1700000000', body + ' ', { now: 1700000100 })).to.equal(false);
    expect(verifySignature('s3cret', sig, '1700000001', body, { now: 1700000100 })).to.equal(false);
    expect(verifySignature('s3cret', sig, '1700000000', body, { now: 1700001000 })).to.equal(false);
    expect(verifySignature('s3cret', undefined, '1700000000', body)).to.equal(false);
    expect(verifySignature('s3cret', 'sha256=00', 'abc', body)).to.equal(false);
  });

  it('headers: the standard ones win over the action own, the signature only with a secret', () => {
    const action: WebhookAction = {
      type: 'webhook',
      url: 'https://example.com/h',
      method: 'POST',
      headers: { Authorization: 'Bearer t', 'idempotency-key': 'forged', 'X-ObjectQL-Signature': 'forged' },
      timeoutMs: 1000,
    };
    const plain = webhookHeaders(action, 'd1', 1700000000, body);
    expect(plain).to.include({
      Authorization: 'Bearer t',
      'Content-Type': 'application/json',
      'Idempotency-Key': 'd1',
      'X-ObjectQL-Delivery': 'd1',
      'X-ObjectQL-Timestamp': '1700000000',
    });
    expect(Object.keys(plain).map((k) => k.toLowerCase())).not.to.include('x-objectql-signature');
    expect(Object.values(plain)).not.to.include('forged');
    const signed = webhookHeaders({ ...action, secret: 'k' }, 'd1', 1700000000, body);
    expect(signed['X-ObjectQL-Signature']).to.equal(signPayload('k', 1700000000, body));
  });

  it('headers: one User-Agent, the action own when it sets one in any case', () => {
    const action: WebhookAction = { type: 'webhook', url: 'https://example.com/h', method: 'POST', headers: {}, timeoutMs: 1000 };
    const agents = (headers: Record<string, string>) => Object.entries(headers).filter(([k]) => k.toLowerCase() === 'user-agent');
    expect(agents(webhookHeaders(action, 'd1', 1, body))).to.deep.equal([['User-Agent', 'objectql-webhook']]);
    expect(agents(webhookHeaders({ ...action, headers: { 'user-agent': 'crm/1' } }, 'd1', 1, body))).to.deep.equal([
      ['user-agent', 'crm/1'],
    ]);
  });
});
