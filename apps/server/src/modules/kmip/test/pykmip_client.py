"""Drives KSP's KMIP listener with PyKMIP's client (Debian python3-pykmip), for kmip.pykmip.test.ts.

Usage: python3 pykmip_client.py <host> <port> <cert> <key> <ca> <kmip version: 1.2|2.0> <scenario>
Prints one JSON object: what each step answered, or the error it raised.
"""
import json
import logging
import sys

from kmip.core import enums
from kmip.core.enums import KMIPVersion
from kmip.pie import client as pie_client
from kmip.pie import objects

logging.disable(logging.CRITICAL)

host, port, cert, key, ca, version, scenario = sys.argv[1:8]
kmip_version = {"1.2": KMIPVersion.KMIP_1_2, "2.0": KMIPVersion.KMIP_2_0}[version]
out = {}


def step(name, fn):
    try:
        out[name] = fn()
    except Exception as err:  # the test reads the reason
        out[name] = {"error": type(err).__name__, "message": str(err)}
        return None
    return out[name]


with pie_client.ProxyKmipClient(
    hostname=host,
    port=int(port),
    cert=cert,
    key=key,
    ca=ca,
    config_file="/dev/null",
    kmip_version=kmip_version,
) as c:
    if scenario == "lifecycle":
        uid = step("create", lambda: c.create(
            enums.CryptographicAlgorithm.AES, 256, name="pykmip-" + version,
            cryptographic_usage_mask=[enums.CryptographicUsageMask.ENCRYPT, enums.CryptographicUsageMask.DECRYPT]))
        step("activate", lambda: c.activate(uid) or "ok")
        attrs = step("get_attributes", lambda: [
            [a.attribute_name.value, str(a.attribute_value)] for a in c.get_attributes(uid)[1]])
        step("attribute_list", lambda: sorted(c.get_attribute_list(uid)))
        step("get", lambda: c.get(uid).value.hex())
        def gcm():
            params = {"block_cipher_mode": enums.BlockCipherMode.GCM,
                      "cryptographic_algorithm": enums.CryptographicAlgorithm.AES,
                      "tag_length": 16}
            ct, iv_made = c.encrypt(b"gcm plaintext", uid=uid, cryptographic_parameters=params)
            return {"ciphertext": ct.hex(), "iv": iv_made.hex() if iv_made else None}
        step("gcm", gcm)
        iv = bytes(range(16))
        def cbc():
            params = {"block_cipher_mode": enums.BlockCipherMode.CBC,
                      "padding_method": enums.PaddingMethod.PKCS5,
                      "cryptographic_algorithm": enums.CryptographicAlgorithm.AES}
            ct, _ = c.encrypt(b"sixteen byte msg and more", uid=uid, cryptographic_parameters=params, iv_counter_nonce=iv)
            pt = c.decrypt(ct, uid=uid, cryptographic_parameters=params, iv_counter_nonce=iv)
            return {"ciphertext": ct.hex(), "plaintext": pt.decode()}
        step("cbc", cbc)
        step("locate", lambda: c.locate(attributes=[
            c.attribute_factory.create_attribute(enums.AttributeType.NAME, "pykmip-" + version)]))
        step("revoke", lambda: c.revoke(enums.RevocationReasonCode.CESSATION_OF_OPERATION, uid) or "ok")
        step("destroy", lambda: c.destroy(uid) or "ok")
        step("get_destroyed", lambda: c.get(uid).value.hex())
        out["uid"] = uid
    elif scenario == "pair":
        pub, priv = step("create_key_pair", lambda: list(c.create_key_pair(
            enums.CryptographicAlgorithm.RSA, 2048, public_name="pair-" + version + ".pub",
            private_name="pair-" + version,
            public_usage_mask=[enums.CryptographicUsageMask.VERIFY],
            private_usage_mask=[enums.CryptographicUsageMask.SIGN]))) or (None, None)
        out["public"], out["private"] = pub, priv
        step("activate", lambda: c.activate(priv) or "ok")
        params = {"padding_method": enums.PaddingMethod.PSS,
                  "hashing_algorithm": enums.HashingAlgorithm.SHA_256,
                  "cryptographic_algorithm": enums.CryptographicAlgorithm.RSA,
                  "digital_signature_algorithm": enums.DigitalSignatureAlgorithm.SHA256_WITH_RSA_ENCRYPTION}
        sig = step("sign", lambda: c.sign(b"signed by KMIP", uid=priv, cryptographic_parameters=params).hex())
        step("verify", lambda: str(c.signature_verify(b"signed by KMIP", bytes.fromhex(sig), uid=pub,
                                                     cryptographic_parameters=params)))
        step("verify_bad", lambda: str(c.signature_verify(b"not what was signed", bytes.fromhex(sig), uid=pub,
                                                         cryptographic_parameters=params)))
        step("get_public", lambda: c.get(pub).value.hex())
    elif scenario == "register":
        key = objects.SymmetricKey(enums.CryptographicAlgorithm.AES, 128, bytes(range(16)), name="registered-" + version)
        uid = step("register", lambda: c.register(key))
        out["uid"] = uid
        step("activate", lambda: c.activate(uid) or "ok")
        step("get", lambda: c.get(uid).value.hex())
        step("mac_wrong_key", lambda: c.mac(b"data", uid=uid, algorithm=enums.CryptographicAlgorithm.HMAC_SHA256)[1].hex())
    elif scenario == "wrapped":
        # Get of sys.argv[8] wrapped by the AES key sys.argv[9] (AES Key Wrap with Padding).
        spec = {
            "wrapping_method": enums.WrappingMethod.ENCRYPT,
            "encryption_key_information": {
                "unique_identifier": sys.argv[9],
                "cryptographic_parameters": {"block_cipher_mode": enums.BlockCipherMode.AES_KEY_WRAP_PADDING},
            },
            "encoding_option": enums.EncodingOption.NO_ENCODING,
        }
        step("get_wrapped", lambda: c.get(sys.argv[8], key_wrapping_specification=spec).value.hex())
    elif scenario == "denied":
        step("create", lambda: c.create(enums.CryptographicAlgorithm.AES, 128, name="denied-" + version))
    elif scenario == "get_other":
        step("get", lambda: c.get(sys.argv[8]).value.hex())
        step("destroy", lambda: c.destroy(sys.argv[8]) or "ok")
print(json.dumps(out))
