"""Rewrite every stored Label Studio token under the current key (after a key rotation)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from connections.models import LabelStudioConnection
from connections.secrets import TokenUnreadableError, token_decrypt, token_reencrypt


class Command(BaseCommand):
    help = (
        "Encrypt every Label Studio token again under AGREEMENT_CONNECTION_KEY; the old key "
        "must still be listed in AGREEMENT_CONNECTION_OLD_KEYS while this runs."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        unreadable = []
        done = 0
        for connection in LabelStudioConnection.objects.only("pk", "token_encrypted"):
            try:
                token_decrypt(connection.token_encrypted)
            except TokenUnreadableError:
                unreadable.append(connection.pk)
                continue
            LabelStudioConnection.objects.filter(pk=connection.pk).update(
                token_encrypted=token_reencrypt(connection.token_encrypted)
            )
            done += 1
        self.stdout.write(f"{done} token(s) encrypted under the current key.")
        if unreadable:
            raise CommandError(
                f"No key decrypts the token of connection(s) {unreadable}: add the old key to "
                "AGREEMENT_CONNECTION_OLD_KEYS, or enter those tokens again."
            )
