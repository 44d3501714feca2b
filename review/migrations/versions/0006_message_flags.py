"""message flags: what intake noticed for the reviewer (e.g. text hidden in an HTML e-mail)

Revision ID: 0006_message_flags
Revises: 0005_answer_memory
Create Date: 2026-11-25 16:00:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = '0006_message_flags'
down_revision: Union[str, Sequence[str], None] = '0005_answer_memory'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema (a pre-migration database made from the current models already has the column)."""
    if 'flags' not in {c["name"] for c in sa.inspect(op.get_bind()).get_columns('inbound_message')}:
        with op.batch_alter_table('inbound_message', schema=None) as batch_op:
            batch_op.add_column(sa.Column('flags', sa.JSON(), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('inbound_message', schema=None) as batch_op:
        batch_op.drop_column('flags')
